// A local identity provider for tests: keys generated at test time, its OpenID Connect discovery
// document and key set served on 127.0.0.1, and tokens signed as the test asks.
import { once } from 'node:events'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose'

/** One of the issuer's signing keys: its kid, its private half, its public half as published. */
interface SigningKey { readonly kid: string, readonly privateKey: CryptoKey, readonly jwk: JWK }

export interface LocalIssuer {
  /** Its issuer identifier, also its origin. */
  readonly issuer: string
  /** Requests served, by path. */
  readonly served: Map<string, number>
  /** Answers a path with a status and body of the test's instead (`undefined`: as an issuer would). */
  readonly answers: Map<string, { status: number, body: unknown }>
  /** A token signed with the current key (or `key`), its claims the defaults and `claims`. */
  sign: (claims?: JWTPayload, key?: SigningKey) => Promise<string>
  /** A new key, published and signed with from now on; the previous one stays published. */
  rotate: () => Promise<SigningKey>
  /** A key of the issuer's that it never published. */
  unpublished: () => Promise<SigningKey>
  /** The public half of the current key, as it is published. */
  readonly currentJwk: () => JWK
  close: () => Promise<void>
}

/** An issuer listening on 127.0.0.1, whose tokens name `audience` unless told otherwise. */
export async function startIssuer (audience: string): Promise<LocalIssuer> {
  const published: SigningKey[] = []
  const served = new Map<string, number>()
  const answers = new Map<string, { status: number, body: unknown }>()
  const server = createServer((request, response) => {
    const path = request.url ?? ''
    served.set(path, (served.get(path) ?? 0) + 1)
    const answer = answers.get(path) ?? standard(path)
    send(response, answer.status, answer.body)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const standard = (path: string): { status: number, body: unknown } => {
    if (path === '/.well-known/openid-configuration') return { status: 200, body: { issuer, jwks_uri: `${issuer}/jwks` } }
    if (path === '/jwks') return { status: 200, body: { keys: published.map(({ jwk }) => jwk) } }
    return { status: 404, body: {} }
  }
  let count = 0
  const newKey = async (): Promise<SigningKey> => {
    const { privateKey, publicKey } = await generateKeyPair('RS256')
    const kid = `key-${++count}`
    return { kid, privateKey, jwk: { ...await exportJWK(publicKey), kid, alg: 'RS256', use: 'sig' } }
  }
  const rotate = async (): Promise<SigningKey> => {
    const key = await newKey()
    published.unshift(key)
    return key
  }
  await rotate()
  return {
    issuer,
    served,
    answers,
    sign: async (claims = {}, key = published[0]) => {
      const now = Math.floor(Date.now() / 1000)
      return await new SignJWT({ iss: issuer, aud: audience, sub: 'user-1', iat: now, exp: now + 300, ...claims })
        .setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: 'at+jwt' })
        .sign(key.privateKey)
    },
    rotate,
    unpublished: newKey,
    currentJwk: () => published[0].jwk,
    close: async () => {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  }
}

/** An address nothing listens on: an issuer that is down. */
export async function downIssuer (): Promise<string> {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return `http://127.0.0.1:${port}`
}

/** A compact JWS of the given header and payload, its signature as given: for tokens no honest issuer signs. */
export function forged (header: object, payload: object, signature = ''): string {
  const part = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url')
  return `${part(header)}.${part(payload)}.${signature}`
}

function send (response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
}
