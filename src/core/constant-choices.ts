// fast-json-stringify meets a `oneOf` by running ajv on the value against each entry in turn,
// looking the entry's schema up each time, for every value it writes. A choice field's `oneOf`
// lists constants only, so the serializer's copy of the schema gets an `enum` in its place, which
// fast-json-stringify writes by the type alone, and the values are checked against the constants
// with a Set before it runs: a value among them is written as the same JSON, and one outside them
// still fails the serialization with a TypeError, as the `oneOf` made it fail.

/** Where a choice field is in the data: a property's name, or each item of an array. */
type Step = string | typeof EACH

const EACH = Symbol('each item')

interface Choice {
  readonly path: readonly Step[]
  readonly values: ReadonlySet<unknown>
  /** The field's place in the schema, for the error, as fast-json-stringify names it. */
  readonly ref: string
}

/** Keywords a choice field may carry besides `type` and `oneOf`: none of them changes what is written. */
const ANNOTATIONS = new Set(['title', 'description', 'examples', 'default', 'deprecated'])
const ENTRY_KEYS = new Set(['const', 'title', 'description'])
/** Keywords under which fast-json-stringify picks a schema by the value: nothing below them is rewritten. */
const APPLICATORS = ['oneOf', 'anyOf', 'allOf', 'if', 'not', '$ref']

/**
 * Rewrites every constant `oneOf` reached through `properties` and `items` of `schema` (a copy the
 * serializer owns) into an `enum`, and returns the check those fields then need before the
 * serializer runs, or undefined when there were none.
 */
export function constantChoices (schema: object): ((data: unknown) => void) | undefined {
  const choices: Choice[] = []
  collect(schema as Node, [], '#', choices)
  if (choices.length === 0) return undefined
  return (data) => {
    for (const choice of choices) check(data, choice, 0)
  }
}

type Node = Record<string, unknown>

function collect (node: Node, path: readonly Step[], ref: string, choices: Choice[]): void {
  const values = constantsOf(node)
  if (values !== undefined) {
    delete node.oneOf
    node.enum = values
    choices.push({ path, values: new Set(values), ref })
    return
  }
  if (APPLICATORS.some((keyword) => Object.hasOwn(node, keyword))) return
  const { properties, items } = node
  if (isNode(properties)) {
    for (const [name, field] of Object.entries(properties)) {
      if (isNode(field)) collect(field, [...path, name], `${ref}/properties/${name}`, choices)
    }
  }
  if (isNode(items)) collect(items, [...path, EACH], `${ref}/items`, choices)
}

/**
 * The constants of a `oneOf` of constants, each of a JSON type the field's `type` admits (else the
 * type would write it otherwise than its constant is written), or undefined for any other schema.
 * A string whose JSON holds an escape is left to fast-json-stringify too: it writes a constant into
 * its generated code unescaped (`"a\\b"` comes out as `"a\b"`), and the bytes served stay its bytes.
 */
function constantsOf (node: Node): unknown[] | undefined {
  const { type, oneOf } = node
  if (!Array.isArray(oneOf) || type === undefined) return undefined
  if (!Object.keys(node).every((key) => key === 'type' || key === 'oneOf' || ANNOTATIONS.has(key))) return undefined
  if (!oneOf.every((entry) => isNode(entry) && Object.hasOwn(entry, 'const') && Object.keys(entry).every((key) => ENTRY_KEYS.has(key)))) return undefined
  const types: unknown[] = Array.isArray(type) ? type : [type]
  const values = oneOf.map((entry: Node) => entry.const)
  return values.every((value) => admitted(value, types)) ? values : undefined
}

function admitted (value: unknown, types: readonly unknown[]): boolean {
  if (value === null) return types.includes('null')
  if (typeof value === 'number') return types.includes('number') || (Number.isInteger(value) && types.includes('integer'))
  if (typeof value === 'string') return types.includes('string') && !JSON.stringify(value).includes('\\')
  return typeof value === 'boolean' && types.includes('boolean')
}

/** Walks `data` down the choice's path as the serializer will (`toJSON` first); a value present and not listed throws. */
function check (data: unknown, choice: Choice, depth: number): void {
  if (depth === choice.path.length) {
    if (data !== undefined && !choice.values.has(data)) throw new TypeError(`The value of '${choice.ref}' does not match schema definition.`)
    return
  }
  if (typeof data !== 'object' || data === null) return
  const value = typeof (data as { toJSON?: unknown }).toJSON === 'function' ? (data as { toJSON: () => unknown }).toJSON() : data
  const step = choice.path[depth]
  if (step === EACH) {
    if (Array.isArray(value)) for (const item of value) check(item, choice, depth + 1)
  } else if (typeof value === 'object' && value !== null) {
    check((value as Node)[step], choice, depth + 1)
  }
}

function isNode (value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
