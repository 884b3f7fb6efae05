// The process as `npm start` runs it: configuration, serving, the generated key, closing.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import t from 'tap'
import { runServer, startServer } from '../helpers/server.js'

const KEY = 'e2e-key-0123456789abcdef'

// Each test starts a server process that compiles its TypeScript first: seconds each on a quiet
// machine, far more on a busy one. Nothing here waits on a clock; this only bounds a hang.
t.setTimeout(300_000)

/** The reference document's page 2, as an agent is served it over HTTP and over MCP. */
const PAGE_TWO = {
  items: [{ id: 3, title: 'A Wizard of Earthsea', status: 'Published', price: 'EUR 9.99', published_on: '01 November 1968' }],
  page: 2,
  totalPages: 2,
  hasNext: false
}

t.test('serves the demo both ways and closes cleanly on SIGTERM', async (t) => {
  // No such file yet: the demo creates its own database, as it always has.
  const database = join(t.testdir(), 'demo', 'catalogue.sqlite')
  const server = await startServer({ API_KEYS: KEY, DATABASE_URL: database, SHUTDOWN_DRAIN_SECONDS: '0' })
  t.teardown(() => { server.child.kill('SIGKILL') })
  t.ok(existsSync(database), 'the demo created its database, its directory too')
  const plain = await fetch(`${server.url}/books`, { headers: { authorization: `Bearer ${KEY}` } })
  t.equal(plain.status, 200)
  t.equal((await plain.json() as unknown[]).length, 3)
  const agent = await fetch(`${server.url}/books?page=2&limit=2`, { headers: { authorization: `Bearer ${KEY}`, 'x-audience': 'agent' } })
  t.strictSame(await agent.json(), PAGE_TWO)
  // A stock MCP client: every tool listed and called (the refund of the paid invoice), the agent body as structured content.
  const mcp = new Client({ name: 'e2e', version: '1.0.0' })
  await mcp.connect(new StreamableHTTPClientTransport(new URL('/mcp', server.url), { requestInit: { headers: { Authorization: `Bearer ${KEY}` } } }))
  const { tools } = await mcp.listTools()
  t.strictSame(tools.map((tool) => tool.name), ['getBook', 'getBookCover', 'getBookText', 'listBooks', 'listBooksWithAuthors', 'listInvoices', 'listLedgerEntries', 'refundInvoice'])
  for (const tool of tools) {
    const args = tool.name === 'refundInvoice' ? { id: 8, amount: '1.00', reason: 'Checked end to end' } : tool.inputSchema.required?.includes('id') === true ? { id: 1 } : {}
    const result = await mcp.callTool({ name: tool.name, arguments: args })
    t.notOk(result.isError, `${tool.name} answers`)
    t.type(result.structuredContent, 'object')
  }
  t.strictSame((await mcp.callTool({ name: 'listBooks', arguments: { page: 2, limit: 2 } })).structuredContent, PAGE_TWO, 'the same page as over HTTP')
  await mcp.close()
  server.child.kill('SIGTERM')
  t.equal(await server.exited, 0)
  t.notMatch(JSON.stringify(server.logs), KEY, 'the key is never logged, by HTTP nor by MCP')
})

t.test('without API_KEYS a key is generated, logged once, and works', async (t) => {
  const server = await startServer({ API_KEYS: '', DATABASE_URL: join(t.testdir(), 'catalogue.sqlite') })
  t.teardown(() => { server.child.kill('SIGKILL') })
  const generated = server.logs.filter((entry) => typeof entry.generatedKey === 'string')
  t.equal(generated.length, 1)
  t.match(generated[0].msg, /API_KEYS/)
  const res = await fetch(`${server.url}/books`, { headers: { authorization: `Bearer ${String(generated[0].generatedKey)}` } })
  t.equal(res.status, 200)
  server.child.kill('SIGINT')
  t.equal(await server.exited, 0)
})

t.test('a bad variable stops the start with one line naming it', async (t) => {
  const { code, stderr } = await runServer({ TIME_ZONE: 'Mars/Olympus' })
  t.equal(code, 1)
  t.equal(stderr, 'Invalid configuration: TIME_ZONE must be an IANA time zone such as "UTC" or "Europe/Paris"; got "Mars/Olympus".\n')
})
