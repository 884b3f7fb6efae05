// What of a file the schema accepted: the entries it refuses are set aside (and named), the others
// kept for the compiler; a problem in the file's frame stops the reading there.
import t from 'tap'
import { DeclarationFileError } from '../../../src/config-file/errors.js'
import { loadDeclarationFile } from '../../../src/config-file/loader.js'

const TASK = { fields: { id: { type: 'integer', handle: true } } }
const MOUNT = { kind: 'list', name: 'listTasks', url: '/tasks', summary: 'List the tasks', record: 'Task', source: 'tasks', permissions: ['unrestricted'] }
const FILE = {
  info: { title: 'Tasks', version: '1.0.0' },
  tags: [{ name: 'tasks', description: 'The tasks.' }],
  records: { Task: TASK, Chore: structuredClone(TASK) },
  upstreams: { api: { origin: 'http://127.0.0.1:4010' } },
  sources: { tasks: { table: 'tasks', orderBy: 'id' }, chores: { table: 'chores', orderBy: 'id' } },
  mounts: [MOUNT, { ...MOUNT, name: 'listChores', url: '/chores', record: 'Chore', source: 'chores' }]
}

function load (change: (file: any) => void): ReturnType<typeof loadDeclarationFile> {
  const file = structuredClone(FILE)
  change(file)
  return loadDeclarationFile('g.json', JSON.stringify(file, null, 2))
}

t.test('a file the schema accepts whole: everything kept, nothing refused', async (t) => {
  const loaded = load(() => {})
  t.strictSame(loaded.declarations, FILE)
  t.strictSame(loaded.issues, [])
  t.strictSame([...loaded.refused], [])
})

t.test('a refused record, upstream or source is left out; the others are kept', async (t) => {
  const loaded = load((file) => {
    file.records.Chore.fields.id.type = 'roman'
    file.upstreams.api.retries = 3
    file.sources.chores.orderBy = []
  })
  t.strictSame([...loaded.refused].sort(), ['/records/Chore', '/sources/chores', '/upstreams/api'])
  t.strictSame(Object.keys(loaded.declarations.records), ['Task'])
  t.strictSame(Object.keys(loaded.declarations.sources), ['tasks'])
  t.strictSame(loaded.declarations.upstreams, {})
  t.strictSame(loaded.declarations.mounts, FILE.mounts, 'the mounts naming them are kept, for the compiler to skip')
  t.equal(loaded.issues.length, 3, 'each problem carried')
})

t.test('a refused mount keeps its place, so the others keep their index', async (t) => {
  const loaded = load((file) => { file.mounts[0].colour = 'blue' })
  t.strictSame([...loaded.refused], ['/mounts/0'])
  t.equal(loaded.declarations.mounts.length, 2)
  t.equal(loaded.declarations.mounts[1].name, 'listChores')
  t.strictSame(loaded.issues.map(({ pointer }) => pointer), ['/mounts/0/colour'])
})

t.test('a badly named entry is refused by its name, a slash in it included', async (t) => {
  const loaded = load((file) => {
    file.records['Task list'] = TASK
    file.sources['a/b'] = { table: 'x', orderBy: 'id' }
  })
  t.strictSame([...loaded.refused].sort(), ['/records/Task list', '/sources/a~1b'])
  t.strictSame(Object.keys(loaded.declarations.records), ['Task', 'Chore'])
  t.strictSame(Object.keys(loaded.declarations.sources), ['tasks', 'chores'])
})

t.test('a bad info, tags or unknown top-level key is set aside: nothing else reads it', async (t) => {
  const loaded = load((file) => {
    file.info = { title: 'Tasks' }
    file.tags = 'tasks'
    file.colour = 'blue'
  })
  t.equal(loaded.declarations.info, undefined)
  t.equal(loaded.declarations.tags, undefined)
  t.notOk('colour' in loaded.declarations)
  t.strictSame([...loaded.refused], [], 'no entry refused')
  t.strictSame(loaded.issues.map(({ pointer }) => pointer).sort(), ['/colour', '/info', '/tags'])
})

t.test('a problem in the file\'s frame stops the reading: nothing to go on with', async (t) => {
  for (const [what, change] of [
    ['no records', (file: any) => { delete file.records }],
    ['mounts not a list', (file: any) => { file.mounts = {} }],
    ['sources not an object', (file: any) => { file.sources = [] }]
  ] as const) {
    t.throws(() => load(change), DeclarationFileError, what)
  }
  t.throws(() => loadDeclarationFile('g.json', '[]'), DeclarationFileError, 'not an object at all')
})
