// The document states what each operation's key needs: its scopes in the bearer requirement and in
// words, after the operation's own description when it has one.
import Fastify from 'fastify'
import t from 'tap'
import Type from 'typebox'
import { arraySource, declareRecord, gateway, handle, scope, serverOptions, signedIn } from '../../src/index.js'

const Note = declareRecord('Note', Type.Object({ id: handle(Type.Integer({ description: 'The note.' })) }, { description: 'A note.' }))

const app = Fastify({ ...serverOptions('silent'), logger: false })
t.teardown(() => app.close())
await app.register(gateway, { databaseUrl: ':memory:', timeZone: 'UTC', apiKeys: [] })
await app.register(async (routes) => {
  const list = { kind: 'list', summary: 'Notes', declaration: Note, source: arraySource([{ id: 1 }]) } as const
  routes.mount({ ...list, name: 'listNotes', url: '/notes', permissions: [scope('notes:read'), scope('notes:write'), scope('notes:read')] })
  routes.mount({ ...list, name: 'listDrafts', url: '/drafts', description: 'The drafts.', permissions: [signedIn, scope('notes:read')] })
})
await app.ready()
const { paths } = app.swagger() as unknown as { paths: Record<string, { get: { security: unknown, description?: string } }> }

t.test('every scope asked for, once each, in the bearer requirement and in words', async (t) => {
  t.strictSame(paths['/notes'].get.security, [{ bearerAuth: ['notes:read', 'notes:write'] }])
  t.equal(paths['/notes'].get.description, 'Needs a key with the scopes `notes:read` and `notes:write`.')
})

t.test('after the operation\'s own description', async (t) => {
  t.strictSame(paths['/drafts'].get.security, [{ bearerAuth: ['notes:read'] }])
  t.equal(paths['/drafts'].get.description, 'The drafts. Needs a key with the scope `notes:read`.')
})
