// With an identity provider trusted: the protected-resource metadata (RFC 9728, bare and for `/mcp`),
// the authorization server's URLs answered with where to sign in, every 401 pointing at the
// metadata, the OpenAPI document's OpenID Connect scheme beside the key's, and an MCP client of the
// official SDK calling a scoped tool with a token.
import type { AddressInfo } from 'node:net'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import t, { type Test } from 'tap'
import { ASYMMETRIC_ALGORITHMS } from '../../src/identity/tokens.js'
import { buildApp } from '../helpers/app.js'
import { downIssuer, startIssuer } from '../helpers/issuer.js'
import type { OpenApiDocument } from '../helpers/openapi.js'
import { PROBLEM_JSON } from '../helpers/problem.js'

const AUDIENCE = 'https://gateway.example.com/mcp'
const METADATA = 'https://gateway.example.com/.well-known/oauth-protected-resource/mcp'
const issuer = await startIssuer(AUDIENCE)
t.teardown(issuer.close)

// A second issuer, never reached: only a token naming it would ask it for keys.
const second = `${await downIssuer()}/realms/second/`
const issuers = [{ issuer: issuer.issuer, algorithms: [...ASYMMETRIC_ALGORITHMS] }, { issuer: second, algorithms: ['ES256'] }]
const { app } = await buildApp(t, { identity: { issuers, audience: AUDIENCE, clockToleranceSeconds: 30 } })
await app.listen({ host: '127.0.0.1', port: 0 })
const mcpUrl = new URL(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}/mcp`)

t.test('the protected-resource metadata, bare and for /mcp: the resource, its issuer, the routes\' scopes, the header', async (t) => {
  for (const url of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
    const res = await app.inject({ url, headers: { 'mcp-protocol-version': '2025-06-18' } })
    t.equal(res.statusCode, 200, url)
    t.match(res.headers['content-type'], /^application\/json/)
    t.strictSame(res.json(), {
      resource: AUDIENCE,
      authorization_servers: [issuer.issuer, second],
      scopes_supported: ['invoices:read', 'invoices:refund', 'metrics'],
      bearer_methods_supported: ['header'],
      resource_name: 'audience-gateway'
    }, url)
  }
})

t.test('the authorization server\'s URLs are a 404 saying where to sign in', async (t) => {
  const detail = `This server is an OAuth protected resource, not an authorization server: sign in with ${issuer.issuer} or ${second}, as its metadata at ${METADATA} says, and send the access token as the header Authorization: Bearer <token>.`
  for (const url of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration/mcp', '/authorize', '/token', '/register']) {
    const res = await app.inject({ method: 'POST', url })
    t.equal(res.statusCode, 404, url)
    t.equal(res.headers['content-type'], PROBLEM_JSON)
    t.equal(res.json().detail, detail, url)
  }
})

t.test('every 401 names the resource metadata, /mcp without credentials among them; a token for another resource is refused', async (t) => {
  for (const request of [{ url: '/invoices' }, { method: 'POST' as const, url: '/mcp', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, payload: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } } }]) {
    const res = await app.inject(request)
    t.equal(res.statusCode, 401, request.url)
    t.equal(res.headers['www-authenticate'], `Bearer realm="audience-gateway", resource_metadata="${METADATA}"`)
  }
  const other = await app.inject({ method: 'POST', url: '/mcp', headers: { authorization: `Bearer ${await issuer.sign({ aud: 'https://other.example.com/mcp' })}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' } })
  t.equal(other.statusCode, 401)
  t.equal(other.headers['www-authenticate'], `Bearer realm="audience-gateway", resource_metadata="${METADATA}", error="invalid_token", error_description="the token is for another resource (its audience is not this gateway)"`)
  const invoices = await app.inject({ url: '/invoices', headers: { authorization: `Bearer ${await issuer.sign({ scope: 'invoices:read' })}` } })
  t.equal(invoices.statusCode, 200, 'a token with the scope reads what a key with it reads')
})

t.test('the OpenAPI document publishes each issuer\'s OpenID Connect scheme beside the key\'s, with each operation\'s scopes', async (t) => {
  const document = app.swagger() as unknown as OpenApiDocument & { components: { securitySchemes: Record<string, object> } }
  t.strictSame(Object.keys(document.components.securitySchemes), ['bearerAuth', 'oidc', 'oidc2'])
  t.match(document.components.securitySchemes.oidc, { type: 'openIdConnect', openIdConnectUrl: `${issuer.issuer}/.well-known/openid-configuration`, description: new RegExp(`^An access token from ${issuer.issuer} whose audience is ${AUDIENCE}`) })
  t.equal((document.components.securitySchemes.oidc2 as { openIdConnectUrl: string }).openIdConnectUrl, `${second.slice(0, -1)}/.well-known/openid-configuration`, 'an issuer\'s trailing slash is not doubled')
  const operations = Object.values(document.paths).flatMap((path) => Object.values(path)) as Array<{ operationId?: string, security?: unknown }>
  t.strictSame(operations.find(({ operationId }) => operationId === 'listInvoices')?.security, [{ bearerAuth: ['invoices:read'] }, { oidc: ['invoices:read'] }, { oidc2: ['invoices:read'] }])
  t.strictSame(operations.find(({ operationId }) => operationId === 'listBooks')?.security, [{ bearerAuth: [] }, { oidc: [] }, { oidc2: [] }])
})

/** The SDK's client, sending a token as a stock client given one sends it; closed after the test. */
async function connect (t: Test, token: string): Promise<Client> {
  const client = new Client({ name: 'gateway-tests', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }))
  t.teardown(async () => { await client.close() })
  return client
}

t.test('over MCP, a token lacking a tool\'s scope is a 403 naming it, with the insufficient_scope challenge', async (t) => {
  const mcp = async (token: string, message: object) => await app.inject({ method: 'POST', url: '/mcp', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, payload: { jsonrpc: '2.0', id: 1, ...message } })
  const stranger = await issuer.sign({ scope: 'other' })
  const res = await mcp(stranger, { method: 'tools/call', params: { name: 'listInvoices', arguments: {} } })
  t.equal(res.statusCode, 403)
  t.equal(res.headers['content-type'], PROBLEM_JSON)
  t.equal(res.headers['www-authenticate'], `Bearer realm="audience-gateway", resource_metadata="${METADATA}", error="insufficient_scope", scope="invoices:read"`)
  t.equal(res.json().detail, 'This token may not call this route: it lacks the scope "invoices:read"; sign in again granting it.')
  for (const message of [
    { method: 'tools/list' },
    { method: 'tools/call', params: { name: 'listLedgerEntries', arguments: {} } },
    { method: 'tools/call', params: { name: 'noSuchTool', arguments: {} } },
    { method: 'tools/call', params: { name: 7 } }
  ]) t.equal((await mcp(stranger, message)).statusCode, 200, `${JSON.stringify(message)}: answered over MCP, no 403`)
  const notRpc = await app.inject({ method: 'POST', url: '/mcp', headers: { authorization: `Bearer ${stranger}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, payload: '"tools/call"' })
  t.not(notRpc.statusCode, 403, 'a body that is no JSON-RPC request is left to the protocol')
})

t.test('an MCP client of the official SDK given a token calls a scoped tool; one lacking the scope meets the 403 and is told which', async (t) => {
  const reader = await connect(t, await issuer.sign({ scope: 'invoices:read' }))
  t.ok((await reader.listTools()).tools.some(({ name }) => name === 'listInvoices'), 'the scoped tool is listed')
  const read = await reader.callTool({ name: 'listInvoices', arguments: {} })
  t.notOk(read.isError)
  t.ok((read.structuredContent as { items: unknown[] }).items.length > 0, 'invoices served')

  const stranger = await connect(t, await issuer.sign({ scope: 'other' }))
  t.notOk((await stranger.listTools()).tools.some(({ name }) => name === 'listInvoices'), 'not listed without the scope')
  const refused = await stranger.callTool({ name: 'listInvoices', arguments: {} }).then(() => undefined, (error: unknown) => error as Error)
  t.match(refused?.message, /Insufficient scope: required "invoices:read"/, 'the SDK reads the challenge: the error names the scope')
})
