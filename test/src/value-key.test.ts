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
