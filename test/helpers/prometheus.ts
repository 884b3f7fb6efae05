// A small parser of Prometheus's text exposition format (0.0.4): every sample by its name and
// labels, and each family's TYPE. Enough to read a scrape as data rather than grep it.

export interface Sample {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

export interface Scrape {
  readonly samples: readonly Sample[]
  readonly types: ReadonlyMap<string, string>
  /** The value of the one sample `name` with exactly these labels among its own (others ignored), or 0. */
  value: (name: string, labels?: Readonly<Record<string, string>>) => number
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$/
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g

export function parseExposition (text: string): Scrape {
  const samples: Sample[] = []
  const types = new Map<string, string>()
  for (const line of text.split('\n')) {
    if (line === '') continue
    if (line.startsWith('#')) {
      const typed = /^# TYPE (\S+) (\S+)$/.exec(line)
      if (typed !== null) types.set(typed[1], typed[2])
      else if (!line.startsWith('# HELP ')) throw new Error(`Not a comment of the format: ${line}`)
      continue
    }
    const match = SAMPLE.exec(line)
    if (match === null) throw new Error(`Not a sample line: ${line}`)
    const labels: Record<string, string> = {}
    for (const [, name, value] of (match[2] ?? '').matchAll(LABEL)) labels[name] = value.replace(/\\(.)/g, (_, c: string) => c === 'n' ? '\n' : c)
    samples.push({ name: match[1], labels, value: Number(match[3]) })
  }
  return {
    samples,
    types,
    value: (name, labels = {}) => {
      const found = samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value))
      if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`)
      return found[0]?.value ?? 0
    }
  }
}
