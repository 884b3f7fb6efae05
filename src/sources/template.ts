// A statement compiled once and run many times with new values. kysely builds and compiles a query
// anew for every call, which for a page's SELECT costs about as much as SQLite running it; a source
// sends the same few statements over and over, differing only in a page's bounds or a seek's key.
// So the statement is compiled once with a marker where each such value goes, and every run copies
// its parameters with the values in the markers' places: the same SQL, which the store's prepared
// statements then find again.
import { createQueryId, sql, type Compilable, type CompiledQuery, type RawBuilder } from 'kysely'

/** Where a value given at each run goes: compiled as a parameter. */
export type Slot = RawBuilder<any>

/** The statement with these values in its slots, in the order the slots were given to `build`. */
export type Template<Row> = (...values: readonly unknown[]) => CompiledQuery<Row>

/** A value of each call, in a statement built once for every call: `slot` where it goes in the query, `marker` among the compiled parameters. */
export interface Slotted {
  readonly slot: Slot
  readonly marker: object
}

export function slotted (): Slotted {
  // An object of its own: no value a query holds can be mistaken for it.
  const marker = {}
  return { slot: sql`${marker}`, marker }
}

/** `compiled` with `values[i]` wherever `markers[i]` is among its parameters, as a run of it. */
export function bound<Row> (compiled: CompiledQuery<Row>, markers: readonly object[], values: readonly unknown[]): CompiledQuery<Row> {
  const parameters = compiled.parameters.map((parameter) => {
    const at = markers.indexOf(parameter as object)
    return at === -1 ? parameter : values[at]
  })
  return { sql: compiled.sql, parameters, query: compiled.query, queryId: createQueryId() }
}

/** `build`'s statement, compiled once, with `slots` values given at each run. */
export function template<Row> (slots: number, build: (...slots: Slot[]) => Compilable<Row>): Template<Row> {
  const placed = Array.from({ length: slots }, slotted)
  const compiled = build(...placed.map(({ slot }) => slot)).compile()
  const places = placed.map(({ marker }, slot) => {
    const at = compiled.parameters.flatMap((parameter, index) => parameter === marker ? [index] : [])
    if (at.length === 0) throw new TypeError(`Slot ${slot} is not in the statement: ${compiled.sql}`)
    return at
  })
  return (...values) => {
    const parameters = compiled.parameters.slice()
    places.forEach((at, slot) => { for (const index of at) parameters[index] = values[slot] })
    // A query id of its own, as kysely gives every execution: plugins may key their state by it.
    return { sql: compiled.sql, parameters, query: compiled.query, queryId: createQueryId() }
  }
}
