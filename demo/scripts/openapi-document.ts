// The OpenAPI document exactly as the default start (`npm start`, no UPSTREAM_URL) publishes it,
// built the same way on every machine: an in-memory store, timestamps in UTC, and a fixed key (keys
// never reach the document; a generated one would only be logged). The products an upstream adds
// are published by the server that mounts them, not in the committed document.
import Fastify from 'fastify'
import app from '../app.js'

/** Where the committed copy lives, from the project's root. */
export const DOCUMENT_PATH = 'openapi/openapi.json'

/** The document as `GET /openapi.json` serves it. */
export async function openApiDocument (): Promise<object> {
  const fastify = Fastify({ logger: false })
  await fastify.register(app, { databaseUrl: ':memory:', timeZone: 'UTC', apiKeys: ['openapi-document-key'] })
  const response = await fastify.inject({ method: 'GET', url: '/openapi.json' })
  await fastify.close()
  return response.json()
}

/** The committed form: two-space indentation, a trailing newline. */
export function renderDocument (document: object): string {
  return `${JSON.stringify(document, null, 2)}\n`
}
