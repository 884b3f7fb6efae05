import t from 'tap'
import Type from 'typebox'
import { fieldInfo, withFieldInfo } from '../../../src/declare/field-info.js'
import { deepFreeze } from '../../helpers/freeze.js'

const displays = new Map([[1, 'Low']])

t.test('a schema nothing was declared about carries no info', async (t) => {
  t.strictSame(fieldInfo(Type.String()), {})
  t.strictSame([undefined, null, true, 'string'].map(fieldInfo), [{}, {}, {}, {}])
})

t.test('field info rides on a copy, out of band', async (t) => {
  const schema = deepFreeze(Type.Integer({ description: 'A priority.' }))
  const copy = withFieldInfo(schema, { displays })
  t.not(copy, schema)
  t.strictSame(fieldInfo(copy), { displays })
  t.strictSame(fieldInfo(schema), {}, 'the original is untouched')
  t.equal(JSON.stringify(copy), '{"type":"integer","description":"A priority."}')
  t.strictSame(Object.keys(copy), ['type', 'description'])
})

t.test('new info is merged over what the schema already carried', async (t) => {
  const marked = withFieldInfo(Type.Integer(), { marking: { kind: 'hidden' } })
  t.strictSame(fieldInfo(withFieldInfo(marked, { displays })), { marking: { kind: 'hidden' }, displays })
  t.strictSame(fieldInfo(withFieldInfo(marked, { marking: { kind: 'content' } })), { marking: { kind: 'content' } })
})

t.test('a frozen schema that already carries info can be given more', async (t) => {
  const frozen = deepFreeze(withFieldInfo(Type.Integer(), { displays }))
  const copy = withFieldInfo(frozen, { marking: { kind: 'hidden' } })
  t.strictSame(fieldInfo(copy), { displays, marking: { kind: 'hidden' } })
  t.strictSame(fieldInfo(frozen), { displays })
})

t.test('TypeBox\'s own non-enumerable keys survive the copy', async (t) => {
  const copy = withFieldInfo(Type.Integer(), { displays })
  t.equal((copy as unknown as Record<string, unknown>)['~kind'], 'Integer')
  t.notOk(Object.keys(copy).includes('~kind'))
})

t.test('TypeBox\'s wrappers carry the info along', async (t) => {
  const schema = withFieldInfo(Type.Integer(), { displays })
  t.strictSame(fieldInfo(Type.Optional(schema)), { displays })
  t.strictSame(fieldInfo(Type.Array(schema).items), { displays })
  t.strictSame(fieldInfo(Type.Object({ priority: schema }).properties.priority), { displays })
})
