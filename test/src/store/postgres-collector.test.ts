// What a read through PostgreSQL leaves to V8's young-generation collector. A page's rows die with
// the request that read them, so a young collection should find almost none of them alive. pg's
// promise form of a query once made it find about half of everything a read allocated alive (see
// resultOf in src/store/postgres-cursor.ts): V8 then allocated parts of every result in the old
// generation, and each row's values, held from there, were copied and promoted at every young
// collection. Measured here with V8's own GC profiler (test/helpers/young.ts), in a process of its
// own (this file), on a page read again and again and on a list streamed through the cursor, as
// the gateway reads them.
import { sql } from 'kysely'
import t, { type Test } from 'tap'
import { openStore } from '../../../src/store/index.js'
import { freshSchema, needs } from '../../helpers/services.js'
import { aliveShare, youngCollections, type Young } from '../../helpers/young.js'

interface Tables { entries: { id: number, memo: string, amount: string, posted_at: string } }

const ROWS = 200
/** Young collections needed to judge: each read allocates about 100 kB, the young generation holds a few MB. */
const ENOUGH_COLLECTIONS = 5
/** The share of the young generation's bytes a young collection may find alive (pg's promise form: about half). */
const MOST_SURVIVING = 0.1

if (await needs(t, 'PostgreSQL')) {
  const { url, drop } = freshSchema()
  const store = await openStore<Tables>(url)
  const { db } = store
  t.teardown(async () => {
    await store.close()
    await drop()
  })
  await sql`create table entries (id integer primary key, memo text not null, amount text not null, posted_at text not null)`.execute(db)
  await sql`insert into entries select g, 'Entry ' || g, 'EUR ' || g || '.50', '2026-03-17T0' || (g % 10) || ':00:00Z' from generate_series(1, ${ROWS}) g`.execute(db)
  const page = db.selectFrom('entries').selectAll().orderBy('id').compile()

  t.test('a page read again and again: the young collections find almost nothing alive', async (t) => {
    const young = await youngCollections(async () => {
      for (let read = 0; read < 1500; read++) if ((await store.read(page)).length !== ROWS) throw new Error('a short page')
    })
    judge(t, young)
  })

  t.test('a list streamed through the cursor, again and again: the same', async (t) => {
    const young = await youngCollections(async () => {
      for (let list = 0; list < 1000; list++) {
        let rows = 0
        for await (const batch of store.stream(db.selectFrom('entries').selectAll().orderBy('id'), 100)) rows += batch.length
        if (rows !== ROWS) throw new Error('a short list')
      }
    })
    judge(t, young)
  })
}

function judge (t: Test, young: Young): void {
  t.ok(young.collections >= ENOUGH_COLLECTIONS, `enough young collections to judge (${young.collections})`)
  t.ok(young.alive <= MOST_SURVIVING * young.before, `found alive: ${aliveShare(young)} of the young generation's bytes, at most ${100 * MOST_SURVIVING} %`)
}
