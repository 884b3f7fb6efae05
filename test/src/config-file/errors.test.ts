// A file's problems in the order of the file: by line, then column; a problem that cannot be
// located comes first, said once however often it was found.
import t from 'tap'
import { declarationFileError, refusalReport } from '../../../src/config-file/errors.js'

t.test('problems sorted by place, the unlocated first, each said once', async (t) => {
  const places: Record<string, { line: number, column: number } | undefined> = { '/b': { line: 3, column: 9 }, '/a': { line: 3, column: 2 }, '/c': { line: 1, column: 5 } }
  const error = declarationFileError('g.json', [
    { pointer: '/b', message: 'b' },
    { pointer: '/a', message: 'a' },
    { pointer: '/c', message: 'c' },
    { pointer: '/nowhere', message: 'n' },
    { pointer: '', message: 'text', at: { line: 2, column: 1 } },
    { pointer: '/a', message: 'a' }
  ], (pointer) => places[pointer])
  t.strictSame(error.lines, ['g.json: /nowhere: n', 'g.json:1:5: /c: c', 'g.json:2:1: /: text', 'g.json:3:2: /a: a', 'g.json:3:9: /b: b'])
  t.equal(refusalReport(error.lines.slice(0, 1)), 'Invalid declaration file (1 problem):\ng.json: /nowhere: n\n')
})
