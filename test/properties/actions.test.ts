// Generated sequences (fast-check) of refunds and reads against the demo, some sent at once: odd
// and well-formed bodies, keys reused or not, both audiences, invoices that can and cannot be
// refunded. Whatever the sequence, every answer is one the document declares, with a body valid
// against it and nothing hidden in an agent's; a retry with a key is answered the first result; and
// at the end the store agrees with the audit log: each invoice refunded at most once, and exactly
// those the log says were, each with one ledger entry of the amount of the call that acted.
import fc from 'fast-check'
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify'
import fp from 'fastify-plugin'
import t from 'tap'
import app from '../../demo/app.js'
import { AGENT_MEDIA_TYPE } from '../../src/audience.js'
import { serverOptions } from '../../src/server.js'
import { KEY } from '../helpers/app.js'
import { propertyRuns, propertySeed } from '../helpers/fast-check.js'
import { documentedResponses, mediaTypeOf, type DocumentedResponses, type OpenApiDocument } from '../helpers/openapi.js'

const SEED = propertySeed(32_2026)
const NUM_RUNS = propertyRuns(40)
const REFUND = '/invoices/{id}/refund'

interface Refund { readonly kind: 'refund', readonly id: number, readonly body: unknown, readonly key?: string, readonly agent: boolean }
interface Read { readonly kind: 'read', readonly agent: boolean }
type Step = Refund | Read

/** A body as a careless agent sends it: mostly right, sometimes a field wrong, missing or extra. */
const body = fc.oneof(
  { weight: 6, arbitrary: fc.record({ amount: fc.constantFrom('12.50', '0.01', '3'), reason: fc.constantFrom('Damaged', 'Late') }) },
  { weight: 1, arbitrary: fc.record({ amount: fc.constantFrom(12.5, '-1', '', '1.999'), reason: fc.string({ maxLength: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ reason: fc.constant('No amount') }) },
  { weight: 1, arbitrary: fc.record({ amount: fc.constant('1.00'), reason: fc.constant('Extra'), refund_all: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constantFrom(null, [], 'refund') }
)

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('refund' as const), id: fc.constantFrom(7, 8, 9), body, key: fc.option(fc.constantFrom('a', 'b', 'c'), { nil: undefined }), agent: fc.boolean() }, { requiredKeys: ['kind', 'id', 'body', 'agent'] }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('read' as const), agent: fc.boolean() }) }
)

/** Steps in batches: the steps of one batch are sent at once, the batches one after another. */
const batches = fc.array(fc.array(step, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 5 })

t.setTimeout(180_000)
t.comment(`fast-check seed ${SEED} (FC_SEED), ${NUM_RUNS} runs (FC_RUNS)`)

/** The demo on a fresh in-memory store, its log lines kept. */
async function demo (): Promise<{ app: FastifyInstance, lines: Array<Record<string, any>> }> {
  const lines: Array<Record<string, any>> = []
  const fastify = Fastify({ ...serverOptions('info'), logger: { level: 'info', stream: { write: (line: string) => { lines.push(JSON.parse(line)) } } } })
  await fastify.register(fp(app), { databaseUrl: ':memory:', timeZone: 'UTC', apiKeys: [KEY], loadShedding: { maxEventLoopDelay: 0 }, rateLimitMax: 1_000_000 })
  await fastify.ready()
  return { app: fastify, lines }
}

const first = await demo()
const document = (await first.app.inject({ url: '/openapi.json' })).json() as OpenApiDocument
await first.app.close()
const documented: DocumentedResponses = documentedResponses(document)

/** What is wrong with one answer, as the document declares the operation's. */
function undocumented (method: 'GET' | 'POST', path: string, res: LightMyRequestResponse, agent: boolean): string[] {
  const mediaType = mediaTypeOf(res.headers['content-type'])
  const validate = documented.validator(path, method, res.statusCode, mediaType)
  if (validate === undefined) return [`${method} ${path}: ${res.statusCode} ${mediaType} is not declared`]
  const parsed = res.json()
  const found = validate(parsed) ? [] : [`${method} ${path}: ${res.statusCode} invalid: ${JSON.stringify(validate.errors)}`]
  if (res.statusCode < 300 && agent !== (mediaType === AGENT_MEDIA_TYPE)) found.push(`${method} ${path}: served the other audience's variant`)
  if (agent && res.statusCode < 300 && /"(etag|secret|internal_cost|account_id)"/.test(res.body)) found.push(`${method} ${path}: a hidden field reached an agent`)
  return found
}

const headersOf = (agent: boolean, key?: string): Record<string, string> => ({
  authorization: `Bearer ${KEY}`,
  ...(agent ? { 'x-audience': 'agent' } : {}),
  ...(key === undefined ? {} : { 'idempotency-key': key })
})

t.test('any sequence of refunds and reads leaves the store consistent with the audit log, every answer as documented', async (t) => {
  let acted = 0
  await fc.assert(fc.asyncProperty(batches, async (sequence) => {
    const { app, lines } = await demo()
    try {
      const problems: string[] = []
      // A key's first result (of a call that acted), as each audience was then answered it.
      const firstByKey = new Map<string, { id: number, body: string }>()
      for (const batch of sequence) {
        const answers = await Promise.all(batch.map(async (sent) => {
          if (sent.kind === 'read') return { sent, res: await app.inject({ url: '/invoices', headers: headersOf(sent.agent) }) }
          return { sent, res: await app.inject({ method: 'POST', url: `/invoices/${sent.id}/refund`, payload: JSON.stringify(sent.body), headers: { ...headersOf(sent.agent, sent.key), 'content-type': 'application/json' } }) }
        }))
        for (const { sent, res } of answers) {
          if (res.statusCode >= 500) problems.push(`a ${res.statusCode}: ${res.body}`)
          problems.push(...undocumented(sent.kind === 'read' ? 'GET' : 'POST', sent.kind === 'read' ? '/invoices' : REFUND, res, sent.agent))
          if (sent.kind !== 'refund' || sent.key === undefined || res.statusCode !== 200) continue
          const earlier = firstByKey.get(`${sent.key} ${String(sent.agent)}`)
          if (earlier !== undefined && res.headers['idempotent-replayed'] === 'true' && earlier.body !== res.body) problems.push(`key ${sent.key}: a replay differs from the first answer`)
          if (earlier === undefined) firstByKey.set(`${sent.key} ${String(sent.agent)}`, { id: sent.id, body: res.body })
        }
      }
      // The store, against the audit log.
      const audits = lines.filter((line) => line.msg === 'action called').map((line) => line.audit)
      const done = audits.filter((audit) => audit.outcome === 'done')
      acted += done.length
      const invoices = (await app.inject({ url: '/invoices', headers: headersOf(false) })).json() as Array<{ id: number, status: string }>
      const refunded = invoices.filter((invoice) => invoice.status === 'REFUNDED').map((invoice) => invoice.id).sort()
      const loggedRefunds = done.map((audit) => audit.arguments.params.id as number).sort()
      if (JSON.stringify(refunded) !== JSON.stringify(loggedRefunds)) problems.push(`refunded ${JSON.stringify(refunded)}, but the log says ${JSON.stringify(loggedRefunds)}`)
      const ledger = (await app.inject({ url: '/ledger?offset=1240', headers: { 'x-audience': 'agent' } })).json().items as Array<{ memo: string, amount: string }>
      const expectedEntries = done.map((audit) => `-${String(audit.arguments.body.amount)}`).sort()
      const entries = ledger.map((entry) => entry.amount.replace('EUR ', '')).sort()
      if (entries.length !== done.length) problems.push(`${entries.length} ledger entries for ${done.length} refunds`)
      if (JSON.stringify(entries.map(Number)) !== JSON.stringify(expectedEntries.map(Number))) problems.push(`ledger amounts ${JSON.stringify(entries)} for ${JSON.stringify(expectedEntries)}`)
      if (refunded.some((id) => id !== 8)) problems.push('an invoice that was never paid was refunded')
      const calls = sequence.flat().filter((sent) => sent.kind === 'refund').length
      if (audits.length !== calls) problems.push(`${calls} calls, ${audits.length} audit lines`)
      if (problems.length > 0) throw new Error(problems.join('\n'))
    } finally {
      await app.close()
    }
  }), { seed: SEED, numRuns: NUM_RUNS })
  t.ok(acted > 0, `some refunds acted (${acted})`)
})
