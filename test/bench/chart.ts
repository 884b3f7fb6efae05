// The bench's ratios as an SVG bar chart (bench-results/ratios.svg, beside the summary): every
// number the summary holds under a key naming a ratio, one bar each, with the line at 1 (parity).

interface Bar { readonly label: string, readonly value: number }

/** Every finite number under a key containing "ratio" (any depth), labelled by its path. */
export function ratiosOf (summary: unknown, path: readonly string[] = [], inRatio = false): Bar[] {
  if (typeof summary === 'number') return inRatio && Number.isFinite(summary) ? [{ label: path.join(' · '), value: summary }] : []
  if (typeof summary !== 'object' || summary === null || Array.isArray(summary)) return []
  return Object.entries(summary).flatMap(([key, value]) => ratiosOf(value, [...path, key], inRatio || /ratio/i.test(key)))
}

const ROW = 22
const LABEL = 360
const WIDTH = 760

export function ratioChart (summary: unknown, title: string): string {
  const bars = ratiosOf(summary)
  const top = Math.max(2, ...bars.map((bar) => bar.value))
  const plot = WIDTH - LABEL - 60
  const x = (value: number): number => LABEL + (value / top) * plot
  const height = 50 + bars.length * ROW + 20
  const rows = bars.map((bar, i) => {
    const y = 40 + i * ROW
    return `<text x="${LABEL - 8}" y="${y + 14}" text-anchor="end">${escape(bar.label)}</text>` +
      `<rect x="${LABEL}" y="${y + 3}" width="${Math.max(1, x(bar.value) - LABEL).toFixed(1)}" height="${ROW - 6}" fill="${bar.value >= 1 ? '#3b7dd8' : '#d8783b'}"/>` +
      `<text x="${(x(bar.value) + 4).toFixed(1)}" y="${y + 14}">${bar.value.toFixed(2)}</text>`
  })
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" font-family="sans-serif" font-size="12">`,
    '<rect width="100%" height="100%" fill="white"/>',
    `<text x="10" y="22" font-size="14" font-weight="bold">${escape(title)}</text>`,
    ...rows,
    `<line x1="${x(1).toFixed(1)}" y1="34" x2="${x(1).toFixed(1)}" y2="${height - 16}" stroke="#333" stroke-dasharray="4 3"/>`,
    `<text x="${x(1).toFixed(1)}" y="${height - 4}" text-anchor="middle">1 (parity)</text>`,
    '</svg>',
    ''
  ].join('\n')
}

function escape (text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}
