// Security headers on every response (helmet), in two sets: an HTML document (Swagger UI at /docs)
// gets a content security policy of this origin only and everything a page needs; any other body
// (JSON, problems, text, the docs' scripts) gets the short set an API answer needs, a policy that
// admits nothing at all. Both are computed once, here, not per request.
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import helmet, { type HelmetOptions } from 'helmet'

/**
 * The one stylesheet Swagger UI writes inline: its top-bar logo's two fill colours (standalone
 * preset of swagger-ui-dist 5). A hash admits exactly these bytes; the test recomputes it from the
 * installed preset, so an upgrade that changes them fails there rather than in a browser.
 */
export const SWAGGER_UI_LOGO_STYLE = "'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='"

/**
 * For an HTML document: everything from this origin, nothing inline, no framing. Swagger UI needs no more: its page links
 * its files, it fetches the document from here, and @fastify/swagger-ui's logo is a `data:` image.
 */
export const CONTENT_SECURITY_POLICY = {
  defaultSrc: ["'self'"],
  baseUri: ["'self'"],
  connectSrc: ["'self'"],
  fontSrc: ["'self'", 'data:'],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
  imgSrc: ["'self'", 'data:'],
  objectSrc: ["'none'"],
  scriptSrc: ["'self'"],
  scriptSrcAttr: ["'none'"],
  styleSrc: ["'self'", SWAGGER_UI_LOGO_STYLE]
}

/** For any other body: it loads nothing and may be framed by no one, should a browser render it. */
export const API_CONTENT_SECURITY_POLICY = { defaultSrc: ["'none'"], frameAncestors: ["'none'"] }

/**
 * An API answer's headers (OWASP's REST list): the policy, HSTS, nosniff, no framing, no
 * cross-origin embedding, no referrer. What only a rendered page uses (COOP, Origin-Agent-Cluster,
 * DNS prefetching, IE's download and XSS switches, Flash's cross-domain policies) is left out:
 * helmet's full set would add 400 bytes to every answer for nothing.
 */
const API: HelmetOptions = {
  // useDefaults off everywhere: helmet's defaults add `upgrade-insecure-requests`, which breaks the
  // docs on plain http (a local run, TLS ended at a proxy), and allow inline styles.
  contentSecurityPolicy: { useDefaults: false, directives: API_CONTENT_SECURITY_POLICY },
  crossOriginOpenerPolicy: false,
  originAgentCluster: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
  xFrameOptions: { action: 'deny' }
}

/** An HTML document's headers: all of helmet's, with the policy above. */
const DOCUMENT: HelmetOptions = {
  contentSecurityPolicy: { useDefaults: false, directives: CONTENT_SECURITY_POLICY },
  xFrameOptions: { action: 'deny' }
}

/** An API answer's security headers, for answers written on the raw socket before Fastify has a reply. */
export function apiSecurityHeaders (): Readonly<Record<string, string>> {
  return helmetHeaders(API)
}

async function securityHeaders (app: FastifyInstance): Promise<void> {
  const api = helmetHeaders(API)
  const document = helmetHeaders(DOCUMENT)
  // At onSend, once the body's type is known, for every answer: a refusal and a problem included.
  app.addHook('onSend', function secure (_request, reply, payload, done) {
    reply.headers(isHtml(reply.getHeader('content-type')) ? document : api)
    done(null, payload)
  })
}

export default fp(securityHeaders, { name: 'security-headers' })

/**
 * The headers helmet sets for `options`, computed once: none depends on the request (the policy
 * holds no nonce nor function), so running helmet's middleware on every request, which costs more
 * than the rest of the plugins together, would only compute them again.
 */
export function helmetHeaders (options: HelmetOptions): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {}
  const response = {
    setHeader: (name: string, value: unknown) => { headers[name.toLowerCase()] = String(value) },
    // helmet removes X-Powered-By, which Fastify never sends.
    removeHeader: () => {}
  }
  helmet(options)({} as IncomingMessage, response as unknown as ServerResponse, (error?: unknown) => {
    if (error !== undefined) throw error
  })
  return Object.freeze(headers)
}

function isHtml (contentType: unknown): boolean {
  return typeof contentType === 'string' && /^\s*text\/html\s*(?:;|$)/i.test(contentType)
}
