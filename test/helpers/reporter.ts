// The suite's reporter for Node's test runner: Node's own dots while the files run, each failure
// with its assertion and stack at the end, then one line of counts ("# tests 20762, pass 20762,
// fail 0, ..."), which a person reads and CI's scripts parse (.ci/test-log). The counts are the
// runner's closing diagnostics, which the dot reporter leaves out.
import { dot } from 'node:test/reporters'

type Event = { type: string, data: { message?: string, file?: string, nesting?: number } }

export default async function * reporter (source: AsyncIterable<Event>): AsyncGenerator<string> {
  const counts: string[] = []
  async function * watched (): AsyncGenerator<Event> {
    for await (const event of source) {
      // The run's own diagnostics belong to no file; a file's comments do.
      if (event.type === 'test:diagnostic' && event.data.file === undefined && event.data.nesting === 0) {
        counts.push(event.data.message ?? '')
      }
      yield event
    }
  }
  yield * dot(watched() as Parameters<typeof dot>[0])
  yield `\n# ${counts.join(', ')}\n`
}
