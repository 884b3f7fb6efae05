// A NULL a view hands to a field not declared nullable, served over HTTP from a declaration file:
// refused with a 502 naming the field (and logged), to both audiences; a plain list that meets it
// after its first batch is cut before its closing bracket, never completed with a made-up value.
import { get } from 'node:http'
import type { AddressInfo } from 'node:net'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import type { FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import { AUTH } from '../helpers/app.js'
import { buildDeclaredApp } from '../helpers/declared-app.js'
import { CHUNK_BYTES } from '../../src/core/json-array.js'

const dir = t.testdir()
const file = join(dir, 'notes.sqlite')
const db = new Database(file)
db.exec(`create table notes (id integer primary key, body text);
  create view shown as select id, body from notes;`)
const insert = db.prepare('insert into notes (id, body) values (?, ?)')
// The NULL is the last note of an agent's page of 50, far enough in that a plain list has sent a
// whole chunk before it meets it (each note's text is at least 24 characters).
const PAGE = Math.ceil(CHUNK_BYTES / 24 / 50)
const NULL_AT = PAGE * 50
db.transaction(() => { for (let id = 1; id <= NULL_AT + 500; id++) insert.run(id, id === NULL_AT ? null : `note ${id}`) })()
db.close()

const declaration = join(dir, 'gateway.json')
await writeFile(declaration, JSON.stringify({
  records: { Note: { fields: { id: { type: 'integer', handle: true }, body: { type: 'string', label: true } } } },
  sources: { shown: { table: 'shown', orderBy: 'id', unique: ['id'] } },
  mounts: [
    { kind: 'list', name: 'listNotes', url: '/notes', summary: 'Notes', record: 'Note', source: 'shown', permissions: ['unrestricted'] },
    { kind: 'retrieve', name: 'getNote', url: '/notes/:id', summary: 'A note', record: 'Note', source: 'shown', params: { id: { type: 'integer' } }, permissions: ['unrestricted'] }
  ]
}))

/** The file served over the view, closed with `t`: a listening app ends with its own test. */
async function served (t: Test): Promise<FastifyInstance> {
  return await buildDeclaredApp(t, declaration, { databaseUrl: file, setUp: undefined })
}

const detail = 'Record Note\'s field "body" holds NULL, which its declaration does not admit (it is not nullable); the request is refused rather than served a value that is not the one stored.'

t.test('one record holding the NULL: a 502 naming the field, to both audiences', async (t) => {
  const app = await served(t)
  for (const headers of [AUTH, { ...AUTH, 'x-audience': 'agent' }]) {
    const response = await app.inject({ url: `/notes/${NULL_AT}`, headers })
    t.equal(response.statusCode, 502)
    t.match(response.json(), { type: 'urn:audience-gateway:problem:stored-value-invalid', title: 'Stored value invalid', status: 502, detail })
  }
  t.equal((await app.inject({ url: `/notes/${NULL_AT - 1}`, headers: AUTH })).json().body, `note ${NULL_AT - 1}`)
})

t.test('an agent\'s page holding it is refused; the pages around it are served', async (t) => {
  const app = await served(t)
  t.equal((await app.inject({ url: `/notes?page=${PAGE}&limit=50`, headers: { ...AUTH, 'x-audience': 'agent' } })).statusCode, 502)
  t.equal((await app.inject({ url: `/notes?page=${PAGE - 1}&limit=50`, headers: { ...AUTH, 'x-audience': 'agent' } })).statusCode, 200)
  t.equal((await app.inject({ url: `/notes?page=${PAGE + 1}&limit=50`, headers: { ...AUTH, 'x-audience': 'agent' } })).statusCode, 200)
})

t.test('a plain list meeting it once its first bytes have left is cut, never completed', async (t) => {
  const app = await served(t)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as AddressInfo
  const { status, body, ended } = await new Promise<{ status: number | undefined, body: string, ended: string }>((resolve) => {
    get({ host: '127.0.0.1', port, path: '/notes', headers: AUTH, agent: false }, (response) => {
      let body = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => { body += chunk })
      response.on('end', () => { resolve({ status: response.statusCode, body, ended: 'completed' }) })
      response.on('error', () => { resolve({ status: response.statusCode, body, ended: 'cut' }) })
    })
  })
  t.equal(status, 200, 'the headers had left')
  t.equal(ended, 'cut')
  t.match(body, /^\[\{"id":1,"body":"note 1"\}/, 'rows before it were sent')
  t.notOk(body.endsWith(']'), 'the array is never closed')
  t.notMatch(body, /"body":""/, 'no made-up value')
})
