// The plain list on PostgreSQL over a real socket: a long list arrives whole, and a client that
// hangs up mid-list closes its cursor and returns its connection to the pool, clean.
import { once } from 'node:events'
import { request, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { sql } from 'kysely'
import t from 'tap'
import { AUTH, buildApp } from '../helpers/app.js'
import { freshSchema, needs, uniqueName, withPostgres } from '../helpers/services.js'
import { until } from '../helpers/until.js'

/** Enough rows (~130 bytes each) that the list outgrows every socket buffer on the way. */
const BOOKS = 200_000

if (await needs(t, 'PostgreSQL')) {
  const application = uniqueName('stream_test')
  const schema = freshSchema()
  const url = new URL(schema.url)
  url.searchParams.set('application_name', application)
  const { app } = await buildApp(t, { databaseUrl: url.toString() })
  t.teardown(schema.drop)
  await sql`insert into books select g, 'Book number ' || g || ' of a long shelf', 'published', '12.50', '2001-01-01', 1 from generate_series(4, ${BOOKS + 3}) g`.execute(app.store.db)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as AddressInfo

  t.test('the whole list arrives, in order', async (t) => {
    const response = await get(port)
    const chunks: Buffer[] = []
    for await (const chunk of response) chunks.push(chunk as Buffer)
    const books = JSON.parse(Buffer.concat(chunks).toString()) as Array<{ id: number }>
    t.equal(books.length, BOOKS + 3)
    t.equal(books.at(-1)?.id, BOOKS + 3)
  })

  t.test('a client hanging up mid-list: the cursor is closed, the connection idle and clean', async (t) => {
    const response = await get(port)
    await once(response, 'data')
    // Read no further: once the socket pushes back, the server stops fetching, and its connection
    // waits in the cursor's transaction (until then it may be caught mid-FETCH, active). Only the
    // server knows its connections' states: they are asked for until they are as expected.
    response.pause()
    const midList = await until(async () => {
      const seen = await states(application)
      return seen.includes('idle in transaction') && seen
    }, 'the cursor\'s connection waits in its transaction')
    t.match(midList, ['idle in transaction'], 'mid-list, the cursor holds its connection')
    response.destroy()
    const after = await until(async () => {
      const seen = await states(application)
      return !seen.includes('idle in transaction') && seen
    }, 'the cursor\'s transaction has ended')
    t.notOk(after.includes('idle in transaction'), 'no transaction left open')
    t.equal((await app.inject({ url: '/books/4', headers: AUTH })).statusCode, 200, 'and the pool serves the next request')
  })

  t.test('the connection ended under a stream (pg_terminate_backend): the stream is cut, the process serves on', async (t) => {
    const response = await get(port)
    await once(response, 'data')
    response.pause()
    // The stream's connection, waiting in its cursor's transaction while the client does not read.
    const pid = await until(async () => await withPostgres(async (client) => (await client.query<{ pid: number }>('select pid from pg_stat_activity where application_name = $1 and state = $2', [application, 'idle in transaction'])).rows[0]?.pid), 'the stream\'s connection waits in its transaction')
    await withPostgres(async (client) => { await client.query('select pg_terminate_backend($1)', [pid]) })
    // The client sees the list cut: the response ends without its closing bracket, or is aborted.
    response.resume()
    const chunks: Buffer[] = []
    const ended = await new Promise<string>((resolve) => {
      response.on('data', (chunk: Buffer) => { chunks.push(chunk) })
      response.on('end', () => { resolve('end') })
      response.on('aborted', () => { resolve('aborted') })
      response.on('error', () => { resolve('error') })
    })
    t.ok(['aborted', 'error', 'end'].includes(ended))
    t.notOk(Buffer.concat(chunks).toString().endsWith(']'), 'the list is cut, never passed off as whole')
    t.equal((await app.inject({ url: '/books/4', headers: AUTH })).statusCode, 200, 'the next request is served, on another connection')
    t.equal((await app.inject({ url: '/healthz' })).statusCode, 200, 'the process is alive')
  })
}

async function get (port: number): Promise<IncomingMessage> {
  const req = request({ host: '127.0.0.1', port, path: '/books', headers: AUTH })
  req.end()
  const [response] = await once(req, 'response') as [IncomingMessage]
  return response
}

/** The states of the app's pooled connections, seen from outside. */
async function states (application: string): Promise<string[]> {
  return await withPostgres(async (client) => (await client.query('select state from pg_stat_activity where application_name = $1', [application])).rows.map((row) => row.state))
}
