import { join } from 'node:path'
import t from 'tap'
import { openStore } from '../../src/store/index.js'
import { DEMO_BOOKS, LEDGER_SIZE, setUpDemo } from '../../demo/catalogue.js'

t.test('the demo catalogue is created on first start and left as it is on the next', async (t) => {
  const file = join(t.testdir(), 'nested', 'catalogue.sqlite')
  const first = await openStore(file, { setUp: setUpDemo })
  await first.db.updateTable('books').set({ title: 'Renamed' }).where('id', '=', 1).execute()
  await first.close()
  const second = await openStore(file, { setUp: setUpDemo })
  t.teardown(() => second.close())
  const books = await second.db.selectFrom('books').selectAll().orderBy('id').execute()
  t.equal(books.length, DEMO_BOOKS.length)
  t.equal(books[0].title, 'Renamed', 'a restart never overwrites a row')
  const { count } = await second.db.selectFrom('ledger').select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow()
  t.equal(Number(count), LEDGER_SIZE)
})

t.test('a store that cannot be set up is closed and the error surfaces', async (t) => {
  const dir = t.testdir({ 'not-a-db.sqlite': 'this is not a SQLite file, just text long enough to be read as a header' })
  await t.rejects(openStore(join(dir, 'not-a-db.sqlite'), { setUp: setUpDemo }), /not a database|file is not a database/i)
})
