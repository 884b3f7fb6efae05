// The loader: a file's text read as JSON or YAML, checked against the schema, every problem one
// issue pointed at (and located by line and column), in the file's words.
import { LineCounter, parseDocument } from 'yaml'
import t from 'tap'
import { declarationFileError, DeclarationFileError } from '../../../src/config-file/errors.js'
import { loadDeclarationFile, locator, MAX_FILE_DEPTH } from '../../../src/config-file/loader.js'

const MINIMAL = {
  records: { Task: { fields: { id: { type: 'integer', handle: true } } } },
  sources: { tasks: { table: 'tasks', orderBy: 'id' } },
  mounts: [{ kind: 'list', name: 'listTasks', url: '/tasks', summary: 'List the tasks', record: 'Task', source: 'tasks', permissions: ['unrestricted'] }]
}

/** The problems a file is refused with, one line each: those that stop its reading, or those the schema finds. */
function refused (path: string, text: string): readonly string[] {
  try {
    const loaded = loadDeclarationFile(path, text)
    if (loaded.issues.length > 0) return declarationFileError(path, loaded.issues, loaded.locate).lines
  } catch (error) {
    if (error instanceof DeclarationFileError) return error.lines
    throw error
  }
  throw new Error('the file was accepted')
}

/** MINIMAL with `change` applied to a copy. */
function changed (change: (file: any) => void): string {
  const file = structuredClone(MINIMAL)
  change(file)
  return JSON.stringify(file, null, 2)
}

t.test('a valid JSON file is its declarations, each value locatable', async (t) => {
  const text = JSON.stringify(MINIMAL, null, 2)
  const loaded = loadDeclarationFile('gateway.json', text)
  t.strictSame(loaded.declarations, MINIMAL)
  t.equal(loaded.path, 'gateway.json')
  t.strictSame(loaded.locate('/mounts/0/url'), { line: 22, column: 7 }, 'the key of the value')
  t.strictSame(loaded.locate(''), { line: 1, column: 1 })
  t.strictSame(loaded.locate('/mounts/7'), { line: 18, column: 3 }, 'an index past the end: the list')
  t.strictSame(loaded.locate('/mounts/0/url/deeper'), { line: 22, column: 7 }, 'past a scalar: the scalar')
  t.strictSame(loaded.locate('/records/nothing'), { line: 2, column: 3 }, 'a missing key: the object holding it')
})

t.test('a byte order mark before the text is no part of it', async (t) => {
  t.strictSame(loadDeclarationFile('gateway.json', `\uFEFF${JSON.stringify(MINIMAL)}`).declarations, MINIMAL)
})

t.test('a YAML file by its extension, the same declarations', async (t) => {
  const text = [
    'records:',
    '  Task:',
    '    fields: { id: { type: integer, handle: true } }',
    'sources: { tasks: { table: tasks, orderBy: id } }',
    'mounts:',
    '  - { kind: list, name: listTasks, url: /tasks, summary: List the tasks, record: Task, source: tasks, permissions: [unrestricted] }'
  ].join('\n')
  for (const path of ['gateway.yaml', 'gateway.YML']) t.strictSame(loadDeclarationFile(path, text).declarations, MINIMAL, path)
})

t.test('text that is not JSON is refused where it breaks', async (t) => {
  t.strictSame(refused('g.json', '{\n  "records": {},\n}'), ['g.json:3:1: /: not JSON: Expected double-quoted property name'])
  t.strictSame(refused('g.json', 'records: {}'), ['g.json: /: not JSON: Unexpected token \'r\''])
  t.strictSame(refused('g.json', '{"records":'), ['g.json:1:12: /: not JSON: Unexpected end of JSON input'], 'where the text ends')
})

t.test('a key given twice is refused, where the second is', async (t) => {
  t.strictSame(refused('g.json', '{\n  "records": {},\n  "records": {}\n}'), ['g.json:3:3: /: a key is given twice in one object: the second would silently win'])
})

t.test('YAML that does not parse is refused where it breaks', async (t) => {
  t.strictSame(refused('g.yaml', 'records: {\nsources: ]'), [
    'g.yaml:2:1: /: not YAML: Flow map in block collection must be sufficiently indented and end with a }',
    'g.yaml:2:10: /: not YAML: Unexpected flow-seq-end token in YAML stream: "]"'
  ])
})

t.test('every problem of the schema on a line of its own, pointed at and located', async (t) => {
  const text = changed((file) => {
    delete file.mounts[0].summary
    file.mounts[0].colour = 'blue'
    file.mounts[0].permissions = ['everyone']
    file.records.Task.fields.id.type = 7
    file.records.Task.fields.id.pattern = 3
    file.sources.tasks.orderBy = []
  })
  t.strictSame(refused('g.json', text), [
    'g.json:6:11: /records/Task/fields/id/type: must be one of "string", "integer", "number", "boolean", "decimal", "date", "date-time", "object", "array"; got 7',
    'g.json:8:11: /records/Task/fields/id/pattern: must be a string; got 3',
    'g.json:16:7: /sources/tasks/orderBy: must NOT have fewer than 1 items; got an array',
    'g.json:20:5: /mounts/0: must have "summary"',
    'g.json:27:9: /mounts/0/permissions/0: must match ^(signed-in|unrestricted|scope:[A-Za-z0-9_.:/-]+)$; got "everyone"',
    'g.json:29:7: /mounts/0/colour: is not a key of this object; expected one of: kind, name, url, summary, description, tags, record, source, permissions, overrides, schemaName, rowRule, paging, filters, sort'
  ])
})

t.test('a tagged union is told its tags: a missing one, an unknown one (an unknown formatter)', async (t) => {
  t.strictSame(refused('g.json', changed((file) => { delete file.mounts[0].kind })), ['g.json:19:5: /mounts/0: "kind" must be one of "list", "retrieve", "text", "bytes", "action"'])
  t.strictSame(refused('g.json', changed((file) => { file.records.Task.fields.id.formatted = { formatter: 'roman' } })), [
    'g.json:9:13: /records/Task/fields/id/formatted/formatter: "formatter" must be one of "money", "number", "date"; got "roman"'
  ])
  t.strictSame(refused('g.json', changed((file) => { file.mounts[0].paging = { style: 'offset' } })), ['g.json:29:7: /mounts/0/paging: must have "unit"'], 'the branch its tag names, only')
})

t.test('an object where a string belongs', async (t) => {
  t.strictSame(refused('g.json', changed((file) => { file.mounts[0].url = {} })), ['g.json:22:7: /mounts/0/url: must be a string; got an object'])
})

t.test('a value that must be one constant', async (t) => {
  const text = changed((file) => { file.mounts[0].overrides = { id: { content: false } } })
  t.strictSame(refused('g.json', text), ['g.json:31:11: /mounts/0/overrides/id/content: must be true; got false'])
})

t.test('a source is a table unless it names an upstream', async (t) => {
  t.strictSame(refused('g.json', changed((file) => { file.sources.tasks = { orderBy: 'id' } })), ['g.json:13:5: /sources/tasks: must have "table"'])
  t.strictSame(refused('g.json', changed((file) => { file.sources.tasks = { upstream: 'api', orderBy: 'id' } })), [
    'g.json:13:5: /sources/tasks: must have "path"',
    'g.json:15:7: /sources/tasks/orderBy: is not a key of this object; expected one of: upstream, path, paging, item, fields, maxRows'
  ])
})

t.test('a pointer the text cannot place has no line', async (t) => {
  const lines = new LineCounter()
  t.equal(locator(parseDocument('', { lineCounter: lines }), lines)(''), undefined)
})

t.test('a record, source or upstream is named by a name', async (t) => {
  t.strictSame(refused('g.json', changed((file) => { file.records['Task list'] = file.records.Task })), [
    'g.json:11:5: /records/Task list: is not a name: a name matches ^[A-Za-z][A-Za-z0-9_-]*$'
  ])
  t.strictSame(refused('g.json', changed((file) => { file.mounts[0].url = 'tasks' })), ['g.json:22:7: /mounts/0/url: must match ^/; got "tasks"'])
})

t.test('a file that would take the reader down is one problem: an alias bomb, nesting thousands deep', async (t) => {
  const levels = ['a: &a ["x","x","x","x","x","x","x","x","x"]', ...'bcdefgh'.split('').map((name, i) => `${name}: &${name} [${Array(9).fill(`*${'abcdefgh'[i]}`).join(',')}]`)]
  t.match(refused('bomb.yaml', levels.join('\n')), [/^bomb\.yaml: \/: cannot be read as YAML: .*alias/])
  t.strictSame(refused('deep.json', `${'['.repeat(3000)}${']'.repeat(3000)}`), [`deep.json: /: nests more than ${MAX_FILE_DEPTH} levels deep, which no declaration needs`])
  t.strictSame(refused('deep.json', `{"records": ${'{"a": '.repeat(3000)}1${'}'.repeat(3001)}`), [`deep.json: /: nests more than ${MAX_FILE_DEPTH} levels deep, which no declaration needs`])
  t.ok(refused('deep.yaml', `${'['.repeat(3000)}${']'.repeat(3000)}`).every((line) => /^deep\.yaml:1:\d+: \/: not YAML: /.test(line)), 'a YAML file too deep for its parser: located')
  const nested = changed((file) => { file.records.Task.fields.id.description = 'x' })
  t.doesNotThrow(() => loadDeclarationFile('ok.json', nested), 'an ordinary file nests far less')
})

t.test('the document\'s info: a licence names an SPDX identifier or a URL, not both', async (t) => {
  const info = (license: object) => changed((file) => { file.info = { title: 'Tasks', version: '1.0.0', license } })
  t.strictSame(loadDeclarationFile('g.json', info({ name: 'MIT', url: 'https://opensource.org/license/mit' })).declarations.info?.license, { name: 'MIT', url: 'https://opensource.org/license/mit' })
  t.strictSame(refused('g.json', info({ name: 'MIT', identifier: 'MIT', url: 'https://opensource.org/license/mit' })), ['g.json:34:5: /info/license: must have "identifier" or "url", not both'])
  t.match(refused('g.json', info({ name: 'MIT', url: 'opensource.org' })), [/^g\.json:\d+:\d+: \/info\/license\/url: must match/])
  t.match(refused('g.json', info({ identifier: 'MIT' })), [/\/info\/license: must have "name"$/])
})
