// A resource as a tool, without a server: what toolOf refuses at registration.
import t from 'tap'
import Type from 'typebox'
import { MountError } from '../../src/core/mount.js'
import type { Resource } from '../../src/core/resource.js'
import { toolOf } from '../../src/mcp/tools.js'

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
