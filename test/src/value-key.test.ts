import t from 'tap'
import { valueKey } from '../../src/value-key.js'

t.test('a key holds the text and the values, types told apart', async (t) => {
  t.equal(valueKey('select 1', [1, 'a']), valueKey('select 1', [1, 'a']))
  t.not(valueKey('select 1', [1]), valueKey('select 2', [1]))
  t.not(valueKey('select 1', [1]), valueKey('select 1', ['1']))
  t.not(valueKey('select 1', [5n]), valueKey('select 1', ['5']))
  t.not(valueKey('select 1', [5n]), valueKey('select 1', [6n]))
  t.not(valueKey('v1', [{ a: 1 }]), valueKey('v1', [{ a: 2 }]), 'nested values count')
})

t.test('a bigint anywhere is tagged, and the values with it written as without one', async (t) => {
  t.equal(valueKey('q', [5n]), 'q\n[{"bigint":"5"}]')
  t.equal(valueKey('q', [{ a: 1, b: [2, 3n] }, 'x']), 'q\n[{"a":1,"b":[2,{"bigint":"3"}]},"x"]')
  t.equal(valueKey('q', [{ a: 1, b: [2, 3] }, 'x']), 'q\n[{"a":1,"b":[2,3]},"x"]')
})

t.test('values JSON cannot write fail as JSON.stringify fails', async (t) => {
  const circular: Record<string, unknown> = {}
  circular.self = circular
  t.throws(() => valueKey('q', [circular]), TypeError)
  t.throws(() => valueKey('q', [{ toJSON: () => { throw new RangeError('no JSON') } }]), RangeError)
})
