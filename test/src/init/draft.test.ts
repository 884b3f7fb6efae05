// renderDraft: the declarations as YAML that reads back to them, short maps on one line, the header
// and every note a comment above the key its pointer names (or the nearest key on a line of its own).
import t from 'tap'
import { parse } from 'yaml'
import { renderDraft, type Draft } from '../../../src/init/draft.js'

const draft: Draft = {
  declarations: {
    records: {
      'A/B': { fields: { id: { type: 'integer', handle: true }, body: { type: 'object', fields: { note: { type: 'string', description: 'A note long enough that its map cannot be written on one line.' } } } } }
    },
    sources: { list: { upstream: 'up', path: '/list', paging: { style: 'single' } } },
    mounts: [{ kind: 'list', name: 'list', url: '/list', summary: 'List', record: 'A/B', source: 'list', permissions: ['unrestricted'] }]
  },
  notes: [
    { pointer: '', note: 'about the whole file' },
    { pointer: '/records/A~1B/fields/id/handle', note: 'the handle' },
    { pointer: '/records/A~1B/fields/body/fields/note', note: 'a nested field,\non two lines' },
    { pointer: '/records/A~1B/fields/gone', note: 'left out' },
    { pointer: '/mounts/0', note: 'the mount' },
    { pointer: '/mounts/0/permissions', note: 'narrow it' },
    { pointer: '/mounts/0/permissions', note: 'really' },
    { pointer: '/mounts/7', note: 'no such mount' },
    { pointer: '/sources/list/path/deeper', note: 'past a value' }
  ]
}

t.test('the text reads back to the declarations', async (t) => {
  t.strictSame(parse(renderDraft(draft, 'header')), draft.declarations)
})

t.test('the header, then the notes on the file, then each note above its key', async (t) => {
  t.equal(renderDraft(draft, 'first line\nsecond line'), `# first line
# second line

# about the whole file

records:
  A/B:
    # left out
    fields:
      # the handle
      id: { type: integer, handle: true }
      body:
        type: object
        fields:
          # a nested field,
          # on two lines
          note:
            type: string
            description: A note long enough that its map cannot be written on one line.
sources:
  # past a value
  list: { upstream: up, path: /list, paging: { style: single } }
# no such mount
mounts:
  # the mount
  - kind: list
    name: list
    url: /list
    summary: List
    record: A/B
    source: list
    # narrow it
    # really
    permissions: [ unrestricted ]
`)
})

t.test('a draft without notes is its header and its declarations', async (t) => {
  t.equal(renderDraft({ declarations: { records: {}, sources: {}, mounts: [] }, notes: [] }, 'only this'), '# only this\n\nrecords: {}\nsources: {}\nmounts: []\n')
})
