// Generated tool calls (fast-check) through the SDK's client, for every tool the gateway lists: odd
// and well-formed arguments, missing, extra, of the wrong type, out of every bound. Whatever is sent,
// the answer is a tool result, never a protocol error: a refusal with `isError` and its reason as
// text, or structured content that validates against the tool's output schema, declares every key
// it holds, holds no field the route's declaration hides, and equals the HTTP agent body for the
// same (well-formed) arguments.
import type { AddressInfo } from 'node:net'
import { isDeepStrictEqual } from 'node:util'
import { Client, StreamableHTTPClientTransport, type Tool } from '@modelcontextprotocol/client'
import fc from 'fast-check'
import t from 'tap'
import { Marking } from '../../src/declare/index.js'
import { PLAIN_MEDIA_TYPE } from '../../src/audience.js'
import { createAjv } from '../helpers/ajv.js'
import { AGENT, buildApp, KEY } from '../helpers/app.js'
import { hiddenFieldsOf, hiddenKeysIn, undeclaredKeys } from './agent-bodies.js'
import { propertyRuns, propertySeed } from '../helpers/fast-check.js'

const SEED = propertySeed(7_2026)
const NUM_RUNS = propertyRuns(100)

/** As in routes.test.ts: the mounts whose overrides change what an agent sees. */
const MOUNT_OVERRIDES: Readonly<Record<string, Readonly<Record<string, Marking>>>> = {
  listBooksWithAuthors: { author_id: Marking.handle() }
}

t.setTimeout(180_000)
t.comment(`fast-check seed ${SEED} (FC_SEED), ${NUM_RUNS} runs per tool (FC_RUNS)`)

const { app, routes } = await buildApp(t, { rateLimitMax: 1_000_000 })
await app.listen({ host: '127.0.0.1', port: 0 })
const client = new Client({ name: 'properties', version: '1.0.0' })
await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${KEY}` } } }))
t.teardown(async () => { await client.close() })
const { tools } = await client.listTools()
const ajv = createAjv()

/**
 * A value for one argument: mostly plausible, often odd, as a model might send it. A required one
 * (a record's id) is mostly one that exists (the demo's 1 to 3), so that records are served too.
 */
function valueFor (schema: { type?: string, enum?: readonly unknown[], format?: string }, required: boolean): fc.Arbitrary<unknown> {
  const odd = fc.oneof(
    fc.constant(null), fc.boolean(), fc.double({ noNaN: true }), fc.string({ maxLength: 8 }),
    fc.constantFrom('1e3', '0x10', '+1', '01', ' 1', '1.0', ''), fc.constant([1, 2]), fc.constant({ a: 1 })
  )
  // A filter: mostly a value it admits (a listed one, an instant of the demo's year, some text), so that filtered lists are served too.
  if (schema.enum !== undefined) return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...schema.enum) }, { weight: 1, arbitrary: odd })
  if (schema.format === 'date-time') {
    const instant = fc.integer({ min: Date.UTC(2026, 0, 1) / 1000, max: Date.UTC(2026, 11, 31) / 1000 }).map((seconds) => new Date(seconds * 1000).toISOString())
    return fc.oneof({ weight: 4, arbitrary: instant }, { weight: 1, arbitrary: odd })
  }
  if (schema.type === 'string') return fc.oneof({ weight: 3, arbitrary: fc.constantFrom('INV-', 'INV-2', 'x') }, { weight: 1, arbitrary: odd })
  if (schema.type !== 'integer') return fc.oneof(fc.string({ maxLength: 12 }), odd)
  return fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: 1, max: required ? 3 : 30 }) },
    { weight: 2, arbitrary: fc.oneof(fc.integer({ min: -5, max: 0 }), fc.integer({ min: 1000, max: Number.MAX_SAFE_INTEGER })) },
    { weight: 1, arbitrary: fc.constantFrom(Number.MAX_SAFE_INTEGER + 1, 2 ** 64) },
    { weight: 2, arbitrary: odd }
  )
}

/** Arguments for `tool`: each property given or left out, now and then one it does not take. */
function argumentsFor (tool: Tool): fc.Arbitrary<Record<string, unknown>> {
  const properties = tool.inputSchema.properties as Record<string, { type?: string }>
  const required = tool.inputSchema.required ?? []
  const given = Object.fromEntries(Object.entries(properties).map(([name, schema]) => [name, valueFor(schema, required.includes(name))]))
  return fc.record({
    // A required argument is now and then left out, as a careless caller would.
    args: fc.oneof({ weight: 9, arbitrary: fc.record(given, { requiredKeys: required }) }, { weight: 1, arbitrary: fc.record(given, { requiredKeys: [] }) }),
    extra: fc.option(fc.dictionary(fc.constantFrom('foo', 'q', 'audience'), fc.string({ maxLength: 4 }), { maxKeys: 1 }), { freq: 4 })
  }).map(({ args, extra }) => ({ ...args, ...extra }))
}

/** The HTTP URL asking what `args` ask, when each is a whole number or a text (what a query string can say alike). */
function httpUrlOf (tool: Tool, args: Record<string, unknown>): string | undefined {
  if (!Object.values(args).every((value) => Number.isSafeInteger(value) || typeof value === 'string')) return undefined
  const route = routes.find((candidate) => candidate.schema?.operationId === tool.name)
  if (route === undefined) return undefined
  const pathNames = new Set(route.url.match(/:\w+/g)?.map((name) => name.slice(1)) ?? [])
  const path = route.url.replace(/:(\w+)/g, (_, name: string) => String(args[name]))
  const query = Object.entries(args).filter(([name]) => !pathNames.has(name)).map(([name, value]) => `${name}=${encodeURIComponent(String(value))}`).join('&')
  return query === '' ? path : `${path}?${query}`
}

t.test('every tool is exercised', async (t) => {
  t.equal(tools.length, 7)
})

for (const tool of tools) {
  t.test(`${tool.name}: any call is answered as a tool result, valid, closed, with nothing hidden`, async (t) => {
    const validate = ajv.compile(tool.outputSchema as object)
    const route = routes.find((candidate) => candidate.schema?.operationId === tool.name)
    t.ok(route !== undefined, 'its route is found')
    const hidden = hiddenFieldsOf(route!, PLAIN_MEDIA_TYPE, MOUNT_OVERRIDES[tool.name])
    const seen = { served: 0, refused: 0, compared: 0 }
    await fc.assert(fc.asyncProperty(argumentsFor(tool), async (args) => {
      const result = await client.callTool({ name: tool.name, arguments: args })
      const content = result.content as Array<{ type: string, text: string }>
      if (content.length !== 1 || content[0].type !== 'text') throw new Error(`not one text block: ${JSON.stringify(result)}`)
      if (result.isError === true) {
        seen.refused++
        if (!/^[A-Z][\w ]+ \(4\d\d\): /.test(content[0].text)) throw new Error(`a refusal that is not a client error in words: ${content[0].text}`)
        return
      }
      seen.served++
      const body = result.structuredContent
      if (!validate(body)) throw new Error(`contradicts its outputSchema: ${JSON.stringify(validate.errors)} in ${JSON.stringify(body).slice(0, 300)}`)
      const leaks = [...hiddenKeysIn(body, hidden.names), ...undeclaredKeys(tool.outputSchema, body)]
      if (leaks.length > 0) throw new Error(`hidden or undeclared keys: ${leaks.join(', ')}`)
      if (!isDeepStrictEqual(JSON.parse(content[0].text), body)) throw new Error('the text block differs from the structured content')
      const url = httpUrlOf(tool, args)
      if (url === undefined) return
      const http = await app.inject({ url, headers: AGENT })
      if (http.statusCode !== 200 || !isDeepStrictEqual(http.json(), body)) throw new Error(`unlike GET ${url} as an agent: ${http.statusCode}`)
      seen.compared++
    }), { seed: SEED, numRuns: NUM_RUNS })
    t.ok(seen.served > 0 && seen.refused > 0, `both served and refused calls were made (${JSON.stringify(seen)})`)
    t.ok(seen.compared > 0, 'served calls were compared with HTTP')
  })
}
