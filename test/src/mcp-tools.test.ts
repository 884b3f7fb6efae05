// A resource as a tool, without a server: what toolOf refuses at registration, and a refusal's text.
import t from 'tap'
import Type from 'typebox'
import { MountError } from '../../src/core/mount.js'
import type { Resource } from '../../src/core/resource.js'
import { invalidArguments } from '../../src/core/errors.js'
import { problemOf } from '../../src/core/problem.js'
import { refusal, toolOf } from '../../src/mcp/tools.js'
import { MAX_ECHOED_CHARACTERS, MAX_ECHOED_NAMES } from '../../src/core/echo.js'

t.test('a path parameter named like an argument cannot be one object of arguments: refused, naming the route', async (t) => {
  const resource = {
    name: 'getNote',
    summary: 'Get a note',
    query: Type.Object({ id: Type.String() }, { additionalProperties: false }),
    params: Type.Object({ id: Type.Integer() }),
    bodies: { plain: { type: 'object' }, agent: { type: 'object' } }
  } as unknown as Resource
  t.throws(() => toolOf(resource), new MountError('Route \'getNote\': id is both a path parameter and an argument; a tool takes one object of arguments.'))
})

/** The one text block of a refusal of these argument errors. */
function textOf (errors: Record<string, string[]>): string {
  return refusal(problemOf(invalidArguments(errors)).body).content[0].text
}

t.test('invalid arguments are told in the text itself, each with what is wrong, never "See errors"', async (t) => {
  t.equal(textOf({ limit: ['Must be at most 100.'] }), 'Invalid arguments (400): The request has an invalid argument: limit.\n- limit: Must be at most 100.')
  t.equal(textOf({ offset: ['Must be an integer.', 'Must be at least 0.'], foo: ['Unknown argument.'] }),
    'Invalid arguments (400): The request has 2 invalid arguments: offset, foo.\n- offset: Must be an integer.\n- offset: Must be at least 0.\n- foo: Unknown argument.')
})

t.test('the text is bounded: the first arguments listed, then how many more; a name that is not plain is quoted', async (t) => {
  const many = Object.fromEntries(Array.from({ length: 1000 }, (_, index) => [`arg_${index}`, ['Unknown argument.']]))
  const lines = textOf(many).split('\n')
  t.match(lines[0], /^Invalid arguments \(400\): The request has 1000 invalid arguments: arg_0, .* and 980 more\.$/)
  t.equal(lines.length, 1 + MAX_ECHOED_NAMES)
  t.equal(lines[MAX_ECHOED_NAMES], `- arg_${MAX_ECHOED_NAMES - 1}: Unknown argument.`)
  t.ok(textOf(many).length < 1500, 'a call of a thousand arguments is told in a few lines')
  const long = 'x'.repeat(10_000)
  t.equal(textOf({ [long]: ['Unknown argument.'] }).split('\n')[1], `- "${'x'.repeat(MAX_ECHOED_CHARACTERS)}… (10000 characters)": Unknown argument.`)
  t.equal(textOf({ 'two\nlines': ['Unknown argument.'], '': ['Unknown argument.'], 'a/b.c-d_e': ['Unknown argument.'] }),
    'Invalid arguments (400): The request has 3 invalid arguments: "two\\nlines", "", a/b.c-d_e.\n- "two\\nlines": Unknown argument.\n- "": Unknown argument.\n- a/b.c-d_e: Unknown argument.', 'no name passes for a line of its own')
})
