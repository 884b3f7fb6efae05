// The URLs an OAuth client probes answer, in words, that this server takes a bearer key: an MCP
// client given a wrong key goes looking for an authorization server, and what it reports in the
// end (a registration refused) carries those words to the person. So does `/mcp`'s own 401.
import type { AddressInfo } from 'node:net'
import { Client, StreamableHTTPClientTransport, type OAuthClientProvider } from '@modelcontextprotocol/client'
import t from 'tap'
import { BEARER_ONLY } from '../../plugins/oauth-discovery.js'
import { buildApp } from '../helpers/app.js'
import { PROBLEM_JSON } from '../helpers/problem.js'

const { app } = await buildApp(t, { corsOrigins: ['https://app.example.com'] })

const NOT_FOUND = { type: 'urn:audience-gateway:problem:not-found', title: 'Not found', status: 404, detail: BEARER_ONLY }

/** Every URL the SDK's client, the Inspector and mcp-remote were seen to probe, and a few more of each form. */
const PROBED = [
  '/.well-known/oauth-protected-resource',
  '/.well-known/oauth-protected-resource/mcp',
  '/.well-known/oauth-authorization-server',
  '/.well-known/oauth-authorization-server/mcp',
  '/.well-known/openid-configuration',
  '/.well-known/openid-configuration/mcp',
  '/.well-known/openid-configuration/some/path',
  '/authorize?response_type=code&client_id=x',
  '/token',
  '/register'
]

t.test('every OAuth discovery and endpoint URL is a 404 problem saying to send a bearer key, and where that is explained', async (t) => {
  for (const url of PROBED) {
    for (const method of ['GET', 'POST'] as const) {
      const res = await app.inject({ method, url, headers: { 'mcp-protocol-version': '2025-06-18' } })
      t.equal(res.statusCode, 404, `${method} ${url}`)
      t.equal(res.headers['content-type'], PROBLEM_JSON)
      t.strictSame(res.json(), { ...NOT_FOUND, request_id: res.headers['x-request-id'] }, `${method} ${url}: in words`)
    }
  }
  t.match(BEARER_ONLY, /the header Authorization: Bearer <key>\./)
  t.match(BEARER_ONLY, /docs\/mcp\.md/)
  const head = await app.inject({ method: 'HEAD', url: '/.well-known/oauth-protected-resource' })
  t.equal(head.statusCode, 404, 'a HEAD as its GET')
  t.notOk((app.swagger() as { paths: Record<string, unknown> }).paths['/register'], 'none is in the OpenAPI document')
})

t.test('a registration or a token request is answered before its body is read: no 413 for its size, no 415 for its form', async (t) => {
  const registration = await app.inject({ method: 'POST', url: '/register', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ client_name: 'x'.repeat(4096), redirect_uris: ['http://localhost:6274/oauth/callback'] }) })
  t.equal(registration.statusCode, 404)
  t.equal(registration.json().detail, BEARER_ONLY)
  const token = await app.inject({ method: 'POST', url: '/token', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'grant_type=authorization_code&code=x' })
  t.equal(token.statusCode, 404)
  t.equal(token.json().detail, BEARER_ONLY)
})

t.test('a wrong or malformed key at /mcp is a 401 whose detail says the same', async (t) => {
  const ask = async (authorization: string) => await app.inject({ method: 'POST', url: '/mcp', headers: { authorization, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' } })
  const wrong = await ask('Bearer expired-key-0123456789')
  t.equal(wrong.statusCode, 401)
  t.equal(wrong.headers['www-authenticate'], 'Bearer realm="audience-gateway", error="invalid_token"', 'RFC 6750\'s challenge, naming no resource metadata: there is none')
  t.equal(wrong.json().detail, `The bearer key is not valid: send one of the configured keys (API_KEYS). ${BEARER_ONLY}`)
  const malformed = await ask('Basic dXNlcjpwYXNz')
  t.equal(malformed.statusCode, 401)
  t.equal(malformed.json().detail, `The Authorization header is malformed: send "Authorization: Bearer <key>". ${BEARER_ONLY}`)
  const route = await app.inject({ url: '/books', headers: { authorization: 'Bearer expired-key-0123456789' } })
  t.equal(route.json().detail, 'The bearer key is not valid: send one of the configured keys (API_KEYS).', 'an HTTP route\'s 401 is as it was')
})

t.test('the SDK\'s client with OAuth, given an expired key, ends on a refusal that carries the gateway\'s words', async (t) => {
  const { app } = await buildApp(t)
  await app.listen({ host: '127.0.0.1', port: 0 })
  const url = new URL(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}/mcp`)
  // What the client asked for, in order, as it asked: the transport hands its fetch to the OAuth flow too.
  const probed: string[] = []
  const recording = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const asked = new URL(input instanceof Request ? input.url : input)
    probed.push(`${init?.method ?? 'GET'} ${asked.pathname}`)
    return await fetch(input, init)
  }
  const provider: OAuthClientProvider = {
    redirectUrl: 'http://localhost:6274/oauth/callback',
    clientMetadata: { client_name: 'an OAuth client', redirect_uris: ['http://localhost:6274/oauth/callback'] },
    clientInformation: () => undefined,
    saveClientInformation: () => {},
    tokens: () => ({ access_token: 'expired-key-0123456789', token_type: 'Bearer' }),
    saveTokens: () => {},
    redirectToAuthorization: () => { throw new Error('no authorization server to send the person to') },
    saveCodeVerifier: () => {},
    codeVerifier: () => 'verifier'
  }
  const client = new Client({ name: 'oauth-client', version: '1.0.0' })
  const failure = await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider, fetch: recording })).then(() => undefined, (error: unknown) => error)
  t.teardown(async () => { await client.close() })
  t.ok(failure instanceof Error, 'the connection fails')
  t.ok((failure as Error).message.includes(BEARER_ONLY), 'and what the client reports says what to send, as it is')
  t.strictSame(probed, [
    'POST /mcp',
    'GET /.well-known/oauth-protected-resource/mcp',
    'GET /.well-known/oauth-protected-resource',
    'GET /.well-known/oauth-authorization-server',
    'GET /.well-known/openid-configuration',
    'POST /register'
  ], 'from the 401 on, it looked for the resource\'s metadata, an authorization server\'s, then registered')
})
