// What every server under test is started with.

export interface ServerOptions {
  /** The store to serve: a SQLite file, or a postgres:// URL (BENCH_STORE=postgres). */
  readonly databasePath: string
  /** The one bearer key accepted. */
  readonly key: string
}
