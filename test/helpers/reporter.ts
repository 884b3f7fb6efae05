// The suite's reporter for Node's test runner: Node's own dots while the files run, each failure
// with its assertion and stack at the end, then every skipped test with its reason (a skip is
// never silent), then one line of counts ("# tests 20762, pass 20762, fail 0, ..."), which a
// person reads and CI's scripts parse (.ci/test-log). The counts are the runner's closing
// diagnostics, which the dot reporter leaves out.
import { relative } from 'node:path'
import { dot } from 'node:test/reporters'

interface Event {
  type: string
  data: { name?: string, message?: string, file?: string, nesting?: number, skip?: string | boolean }
}

export default async function * reporter (source: AsyncIterable<Event>): AsyncGenerator<string> {
  const counts: string[] = []
  const skipped: string[] = []
  async function * watched (): AsyncGenerator<Event> {
    for await (const event of source) {
      const { data } = event
      // The run's own diagnostics belong to no file; a file's comments do.
      if (event.type === 'test:diagnostic' && data.file === undefined && data.nesting === 0) counts.push(data.message ?? '')
      if (event.type === 'test:pass' && data.skip !== undefined && data.skip !== false) {
        skipped.push(`${data.name ?? ''}${typeof data.skip === 'string' ? ` (${data.skip})` : ''}${data.file === undefined ? '' : ` in ${relative(process.cwd(), data.file)}`}`)
      }
      yield event
    }
  }
  yield * dot(watched() as Parameters<typeof dot>[0])
  if (skipped.length > 0) yield `\nSkipped tests:\n${skipped.map((line) => `﹣ ${line}\n`).join('')}`
  yield `\n# ${counts.join(', ')}\n`
}
