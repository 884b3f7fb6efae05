// Browser-facing security headers on every response (helmet), with a content security policy of
// this origin only: Swagger UI at /docs loads its own scripts, styles and document, nothing inline.
import fastifyHelmet from '@fastify/helmet'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

/**
 * The one stylesheet Swagger UI writes inline: its top-bar logo's two fill colours (standalone
 * preset of swagger-ui-dist 5). A hash admits exactly these bytes; the test recomputes it from the
 * installed preset, so an upgrade that changes them fails there rather than in a browser.
 */
export const SWAGGER_UI_LOGO_STYLE = "'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='"

/**
 * Everything from this origin, nothing inline, no framing. Swagger UI needs no more: its page links
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

async function securityHeaders (app: FastifyInstance): Promise<void> {
  await app.register(fastifyHelmet, {
    // useDefaults off: helmet's defaults add `upgrade-insecure-requests`, which breaks the docs
    // on plain http (a local run, TLS ended at a proxy), and allow inline styles.
    contentSecurityPolicy: { useDefaults: false, directives: CONTENT_SECURITY_POLICY },
    xFrameOptions: { action: 'deny' }
  })
}

export default fp(securityHeaders, { name: 'security-headers' })
