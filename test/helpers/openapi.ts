// The OpenAPI document read as a client reads it: the schema of one response (path template,
// method, status, media type) with every `#/components/schemas/...` reference inlined, and a
// validator for it compiled once, so a test can check any real answer against what is published;
// and the headers that response declares, `#/components/headers/...` references followed.
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js'
import { createAjv } from './ajv.js'

export interface OpenApiParameter {
  in: string
  name: string
  required?: boolean
  description?: string
  schema?: Record<string, unknown>
}

/** A header as a response declares it, or a reference to one of `components/headers`. */
export interface OpenApiHeader {
  $ref?: string
  schema?: object
  description?: string
}

export interface OpenApiResponse {
  description?: string
  headers?: Record<string, OpenApiHeader>
  content?: Record<string, { schema?: object }>
}

export interface OpenApiOperation {
  operationId?: string
  description?: string
  parameters?: OpenApiParameter[]
  security?: unknown
  responses: Record<string, OpenApiResponse>
}

export interface OpenApiDocument {
  openapi: string
  paths: Record<string, Record<string, OpenApiOperation>>
  components?: { schemas?: Record<string, object>, headers?: Record<string, OpenApiHeader> }
}

export interface DocumentedOperation {
  /** The path template, as the document writes it (`/books/{id}`). */
  readonly path: string
  /** Lower case, as the document keys it (`get`). */
  readonly method: string
  readonly operation: OpenApiOperation
}

export interface DocumentedResponses {
  /** Every operation the document publishes, in document order. */
  operations: () => DocumentedOperation[]
  /**
   * The key the document answers `status` under: the code itself, else its range (`4XX`);
   * `undefined` when it declares neither (`default` is not taken as a declaration).
   */
  responseKey: (path: string, method: string, status: number) => string | undefined
  /** The schema of that response body, references inlined (one shared object: do not change it); `undefined` when the document has none. */
  schema: (path: string, method: string, status: number, mediaType: string) => object | undefined
  /** A validator for that schema, compiled once per documented response; `undefined` as above. */
  validator: (path: string, method: string, status: number, mediaType: string) => ValidateFunction | undefined
  /**
   * The headers that response declares, by their names in lower case (as a response carries them),
   * each reference followed; `undefined` when the document declares no such response.
   */
  headers: (path: string, method: string, status: number) => Record<string, OpenApiHeader> | undefined
}

const COMPONENTS = '#/components/schemas/'
const HEADER_COMPONENTS = '#/components/headers/'
const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'])

/** Reads `document`; validators compile with `ajv` (default: the tests' shared settings). */
export function documentedResponses (document: OpenApiDocument, ajv: Ajv2020 = createAjv()): DocumentedResponses {
  // By response (`get /books 4XX application/problem+json`): one resolution and one compilation each.
  const schemas = new Map<string, object | undefined>()
  const validators = new Map<object, ValidateFunction>()

  function responseKey (path: string, method: string, status: number): string | undefined {
    const responses = document.paths[path]?.[method.toLowerCase()]?.responses
    if (responses === undefined) return undefined
    const range = `${String(status)[0]}XX`
    return Object.keys(responses).find((key) => key === String(status)) ??
      Object.keys(responses).find((key) => key.toUpperCase() === range)
  }

  function schema (path: string, method: string, status: number, mediaType: string): object | undefined {
    const key = responseKey(path, method, status)
    if (key === undefined) return undefined
    const cacheKey = `${method.toLowerCase()} ${path} ${key} ${mediaType}`
    if (!schemas.has(cacheKey)) {
      const body = document.paths[path][method.toLowerCase()].responses[key].content?.[mediaType]?.schema
      schemas.set(cacheKey, body === undefined ? undefined : resolveRefs(body, document) as object)
    }
    return schemas.get(cacheKey)
  }

  function validator (path: string, method: string, status: number, mediaType: string): ValidateFunction | undefined {
    const body = schema(path, method, status, mediaType)
    if (body === undefined) return undefined
    let compiled = validators.get(body)
    if (compiled === undefined) {
      compiled = ajv.compile(body)
      validators.set(body, compiled)
    }
    return compiled
  }

  function operations (): DocumentedOperation[] {
    return Object.entries(document.paths).flatMap(([path, item]) => Object.entries(item)
      .filter(([method]) => HTTP_METHODS.has(method))
      .map(([method, operation]) => ({ path, method, operation })))
  }

  function headers (path: string, method: string, status: number): Record<string, OpenApiHeader> | undefined {
    const key = responseKey(path, method, status)
    if (key === undefined) return undefined
    const declared = document.paths[path][method.toLowerCase()].responses[key].headers ?? {}
    return Object.fromEntries(Object.entries(declared).map(([name, header]) => [name.toLowerCase(), headerOf(header, document)]))
  }

  return { operations, responseKey, schema, validator, headers }
}

/** `header`, or the component it refers to; a reference to anything else, or to a missing component, is an error. */
function headerOf (header: OpenApiHeader, document: OpenApiDocument): OpenApiHeader {
  if (header.$ref === undefined) return header
  const target = header.$ref.startsWith(HEADER_COMPONENTS) ? document.components?.headers?.[header.$ref.slice(HEADER_COMPONENTS.length)] : undefined
  if (target === undefined) throw new Error(`Unresolvable header $ref ${header.$ref}`)
  return target
}

/**
 * `node` with every `#/components/schemas/...` reference replaced by its component; keywords beside
 * a `$ref` are kept over the component's. A reference to anything else, to a missing component or
 * back into a component being inlined (which would never end) is an error.
 */
export function resolveRefs (node: unknown, document: OpenApiDocument, resolving: readonly string[] = []): unknown {
  if (Array.isArray(node)) return node.map((member) => resolveRefs(member, document, resolving))
  if (typeof node !== 'object' || node === null) return node
  const { $ref, ...rest } = node as Record<string, unknown>
  if (typeof $ref === 'string') {
    const name = $ref.slice(COMPONENTS.length)
    const target = document.components?.schemas?.[name]
    if (!$ref.startsWith(COMPONENTS) || target === undefined) throw new Error(`Unresolvable $ref ${$ref}`)
    if (resolving.includes(name)) throw new Error(`Recursive $ref ${$ref}: ${[...resolving, name].join(' -> ')}`)
    return resolveRefs({ ...target, ...rest }, document, [...resolving, name])
  }
  return Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, resolveRefs(value, document, resolving)]))
}

/** The media type a Content-Type header names, without parameters, in lower case (`''` when absent). */
export function mediaTypeOf (contentType: unknown): string {
  return String(contentType ?? '').split(';')[0].trim().toLowerCase()
}
