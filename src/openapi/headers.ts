// The response headers the gateway sends, each published once under `components/headers` and
// referenced by every response that sends it: a generated client gets one type per header, a
// contract tester one definition to check, and the document says each description once.
import { sameSchema } from './components.js'

/** A response header as a route declares it: its value's schema, with what it means. */
export type DeclaredHeader = Readonly<Record<string, unknown>> & { readonly description: string }

/** An OpenAPI header object: the value's schema, and the description beside it. */
export interface HeaderObject {
  readonly schema: object
  readonly description: string
}

interface Operation { responses?: Record<string, { headers?: Record<string, unknown> }> }

const COMPONENTS = '#/components/headers/'

/**
 * `document` with each header of `known` that a response declares as it is known replaced by a
 * reference to its component; only the components referenced are published, in name order. A
 * response declaring a header of the same name otherwise keeps its own.
 */
export function withHeaderComponents<D extends { paths: Record<string, Record<string, unknown>>, components?: object }> (document: D, known: Readonly<Record<string, DeclaredHeader>>): D & { components?: { headers?: Record<string, HeaderObject> } } {
  const objects = new Map(Object.entries(known).map(([name, declared]) => [name, headerObject(declared)]))
  const used = new Set<string>()
  const paths = mapValues(document.paths, (item) => mapValues(item, (operation) => withReferences(operation as Operation)))
  if (used.size === 0) return document
  const headers = Object.fromEntries([...used].sort().map((name) => [name, objects.get(name) as HeaderObject]))
  return { ...document, paths, components: { ...document.components, headers } }

  function withReferences (operation: Operation): Operation {
    if (operation.responses === undefined) return operation
    const responses = mapValues(operation.responses, (response) => response.headers === undefined
      ? response
      : { ...response, headers: Object.fromEntries(Object.entries(response.headers).map(([name, header]) => [name, referenced(name, header)])) })
    return { ...operation, responses }
  }

  function referenced (name: string, header: unknown): unknown {
    const component = objects.get(name)
    if (component === undefined || !sameSchema(header, component)) return header
    used.add(name)
    return { $ref: COMPONENTS + name }
  }
}

/** The header object @fastify/swagger writes for a declared header: the description beside the schema. */
function headerObject (declared: DeclaredHeader): HeaderObject {
  const { description, ...schema } = declared
  return { schema, description }
}

function mapValues<T, U> (record: Readonly<Record<string, T>>, map: (value: T) => U): Record<string, U> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, map(value)]))
}
