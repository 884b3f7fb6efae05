// Where the bench's tables live: SQLite files (the default), or with BENCH_STORE=postgres, schemas
// of the PostgreSQL database BENCH_POSTGRES_URL names (default: the local `test` database), seeded
// with the same rows. A table is named by its DATABASE_URL, which every server under test is given.
import { join } from 'node:path'
import pg from 'pg'
import { seedPostgresBooks } from './seed-postgres.js'
import { seedBooks } from './seed.js'

export const BENCH_STORES = ['sqlite', 'postgres'] as const
export type BenchStore = typeof BENCH_STORES[number]

export interface BenchTables {
  readonly store: BenchStore
  /** Creates a table of `rows` books with the demo catalogue around it; its DATABASE_URL. */
  create: (rows: number) => Promise<string>
  /** Removes what `create` made outside the bench's temporary directory. */
  drop: () => Promise<void>
}

export function benchTables (env: Readonly<Record<string, string | undefined>>, dir: string): BenchTables {
  const store = (env.BENCH_STORE ?? 'sqlite') as BenchStore
  if (!BENCH_STORES.includes(store)) throw new Error(`BENCH_STORE must be one of ${BENCH_STORES.join(', ')}; got ${JSON.stringify(store)}.`)
  if (store === 'sqlite') {
    return {
      store,
      create: async (rows) => {
        const path = join(dir, `books-${rows}.sqlite`)
        await seedBooks(path, rows)
        return path
      },
      drop: async () => {}
    }
  }
  const base = env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
  const schemas: string[] = []
  return {
    store,
    create: async (rows) => {
      const schema = `bench_${rows}_${process.pid}`
      schemas.push(schema)
      const url = new URL(base)
      url.searchParams.set('schema', schema)
      await dropSchemas(base, [schema])
      await seedPostgresBooks(url.toString(), rows)
      return url.toString()
    },
    drop: async () => { await dropSchemas(base, schemas) }
  }
}

async function dropSchemas (url: string, schemas: readonly string[]): Promise<void> {
  const client = new pg.Client(url)
  await client.connect()
  try {
    for (const schema of schemas) await client.query(`drop schema if exists "${schema}" cascade`)
  } finally {
    await client.end()
  }
}
