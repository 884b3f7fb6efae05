// Response bodies are written by the schema published for their media type, so nothing the
// schema does not declare (a hidden field) can reach the wire.
import fastJson from 'fast-json-stringify'
import { CUSTOM_FORMATS } from '../formats.js'
import { constantChoices } from './constant-choices.js'

const options = { ajv: { formats: CUSTOM_FORMATS } }

/**
 * A serializer for `schema`, knowing the gateway's formats; also Fastify's `serializerCompiler`.
 * It compiles a copy: fast-json-stringify reorders a type list in place (`null` first), which would
 * change the declaration every other route and the OpenAPI document read; and the copy's choice
 * fields are checked by a Set rather than by ajv on every value (constant-choices.ts).
 */
export function compileSerializer ({ schema }: { schema: object }): (data: unknown) => string {
  const copy = structuredClone(schema)
  const check = constantChoices(copy)
  const serialize = fastJson(copy, options)
  if (check === undefined) return serialize
  return (data) => {
    check(data)
    return serialize(data)
  }
}

/**
 * compileSerializer for a route's answers, with one more rule: a frozen body is written once and
 * its text reused while the body lives. Only a body that can never change is frozen (an answer kept
 * while its data is unchanged, served-cache.ts, frozen whole by contract), so its text cannot either.
 */
export function compileResponseSerializer (route: { schema: object }): (data: unknown) => string {
  const serialize = compileSerializer(route)
  const written = new WeakMap<object, string>()
  return (data) => {
    if (typeof data !== 'object' || data === null || !Object.isFrozen(data)) return serialize(data)
    let text = written.get(data)
    if (text === undefined) {
      text = serialize(data)
      written.set(data, text)
    }
    return text
  }
}

/** Compiles a route's serializer for one of its answers, as Fastify's `serializerCompiler` is called. */
export type CompileResponseSerializer = (route: { schema: object }) => (data: unknown) => string

/**
 * compileResponseSerializer, once per distinct schema. Every route answers each of its problems
 * with the same problem schema, which would otherwise be compiled once per route and status: the
 * demo compiled 206 serializers for 19 schemas. Each app has its own (plugins/mount.ts), so what
 * it compiled goes with it, a reload's old app included.
 */
export function responseSerializers (): CompileResponseSerializer {
  const compiled = new Map<string, (data: unknown) => string>()
  return (route) => {
    const key = JSON.stringify(route.schema)
    let serialize = compiled.get(key)
    if (serialize === undefined) {
      serialize = compileResponseSerializer(route)
      compiled.set(key, serialize)
    }
    return serialize
  }
}
