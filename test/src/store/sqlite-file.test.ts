// A SQLite connection held to the file its path names: what the path is checked for, and what is
// told when it changes. The app-level story (routes and readiness) is test/plugins/store-file.test.ts.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
// A new turn of the event loop: its first statement looks at the path again.
import { setImmediate as turn } from 'node:timers/promises'
import SQLite from 'better-sqlite3'
import t from 'tap'
import { isStoreUnavailable } from '../../../src/store/errors.js'
import { holdFile, inspectFile, type FileState } from '../../../src/store/sqlite-file.js'

const dir = t.testdir()

function database (name: string): string {
  const path = join(dir, name)
  const db = new SQLite(path)
  db.exec('create table if not exists notes (id integer primary key)')
  db.close()
  return path
}

t.test('inspectFile names a file by device and inode, and says why a path cannot be served', async (t) => {
  const path = database('named.sqlite')
  t.match(inspectFile(path), { identity: /^\d+:\d+$/ })
  t.strictSame(inspectFile(join(dir, 'missing.sqlite')), { refused: 'is gone' })
  mkdirSync(join(dir, 'a-directory'))
  t.strictSame(inspectFile(join(dir, 'a-directory')), { refused: 'is not a file' })
  const locked = join(dir, 'locked.sqlite')
  writeFileSync(locked, '')
  chmodSync(locked, 0o000)
  // Root reads and writes whatever the mode says: for it, the file is as usable as any.
  if (process.getuid?.() === 0) t.match(inspectFile(locked), { identity: String }, 'root may use a file of mode 000')
  else t.strictSame(inspectFile(locked), { refused: 'is not readable and writable by this process' })
})

/** A path whose state the test sets, for what root cannot meet (a file it may not read). */
function scripted (first: FileState): { inspect: () => FileState, set: (state: FileState) => void } {
  let state = first
  return { inspect: () => state, set: (next) => { state = next } }
}

t.test('a refusal is a StoreUnavailableError, told once per change of state; the file back is told once', async (t) => {
  const path = database('scripted.sqlite')
  const notices: string[] = []
  const fake = scripted({ identity: '1:1' })
  const held = holdFile(path, () => new SQLite(path), { inspect: fake.inspect, onNotice: (message) => { notices.push(message) } })
  t.teardown(() => { held.close() })
  t.strictSame(held.prepare('select count(*) as n from notes').all([]), [{ n: 0 }])
  fake.set({ refused: 'is not readable and writable by this process' })
  await turn()
  for (let i = 0; i < 3; i++) {
    t.throws(() => held.prepare('select 1'), { name: 'StoreUnavailableError', message: `The SQLite file ${path} is not readable and writable by this process.` })
  }
  const thrown = t.throws(() => { held.check() })
  t.ok(isStoreUnavailable(thrown), 'a 503 the client may retry')
  fake.set({ identity: '1:1' })
  held.check()
  held.check()
  t.strictSame(notices, [
    `The SQLite file ${path} is not readable and writable by this process: data routes and readiness answer 503 until it is back`,
    `The SQLite file ${path} is back: serving it again`
  ])
  t.equal(held.generation(), 0, 'the same file: no reopening')
})

t.test('another file that cannot be opened is unavailable, and the connection is kept', async (t) => {
  const path = database('kept.sqlite')
  const fake = scripted({ identity: '1:1' })
  let opened = 0
  const held = holdFile(path, () => {
    if (opened++ > 0) throw Object.assign(new Error('unable to open database file'), { code: 'SQLITE_CANTOPEN' })
    return new SQLite(path)
  }, { inspect: fake.inspect })
  t.teardown(() => { held.close() })
  fake.set({ identity: '1:2' })
  t.throws(() => { held.check() }, { message: `The SQLite file ${path} is another file, which cannot be opened.` })
  fake.set({ identity: '1:1' })
  t.strictSame(held.prepare('select count(*) as n from notes').all([]), [{ n: 0 }], 'the file it held is served again')
})

t.test('statements look at the path once per turn of the event loop; check looks every time', async (t) => {
  const path = database('turns.sqlite')
  let looks = 0
  const fake = scripted({ identity: '1:1' })
  const held = holdFile(path, () => new SQLite(path), { inspect: () => { looks++; return fake.inspect() } })
  t.teardown(() => { held.close() })
  looks = 0
  for (let i = 0; i < 3; i++) held.prepare('select 1')
  t.equal(looks, 1, 'three statements in one turn: one look')
  fake.set({ refused: 'is gone' })
  t.doesNotThrow(() => held.prepare('select 1'), 'a change within the turn is seen from the next')
  t.throws(() => { held.check() }, { name: 'StoreUnavailableError' }, 'check looks now')
  await turn()
  for (let i = 0; i < 2; i++) t.throws(() => held.prepare('select 1'), { name: 'StoreUnavailableError' }, 'a refusal is met by every statement, not remembered')
  fake.set({ identity: '1:1' })
  looks = 0
  held.prepare('select 1')
  held.prepare('select 1')
  t.equal(looks, 1, 'the file back: one look again')
})

t.test('a path that names no usable file when the store opens is a failed start', async (t) => {
  const path = database('start.sqlite')
  let connection: SQLite.Database | undefined
  t.throws(() => holdFile(path, () => (connection = new SQLite(path)), { inspect: () => ({ refused: 'is gone' }) }), { name: 'StoreUnavailableError' })
  t.equal(connection?.open, false, 'and the connection opened is closed')
})

t.test('reopened files keep their connections until the store closes, the current one first', async (t) => {
  const path = database('swapped.sqlite')
  const fake = scripted({ identity: '1:1' })
  const opened: SQLite.Database[] = []
  const open = (): SQLite.Database => {
    const connection = new SQLite(path)
    opened.push(connection)
    return connection
  }
  const held = holdFile(path, open, { inspect: fake.inspect })
  fake.set({ identity: '1:2' })
  held.check()
  fake.set({ identity: '1:3' })
  held.check()
  t.equal(held.generation(), 2)
  t.strictSame(opened.map((connection) => connection.open), [true, true, true], 'the old connections stay open while serving')
  held.close()
  t.strictSame(opened.map((connection) => connection.open), [false, false, false])
})
