// MCP against HTTP: a `tools/call` of a 50-entry ledger page against the HTTP agent GET of the same
// page, on one gateway process, over sockets, in alternation (see alternate.ts). Before anything is
// measured, every call's structured content is checked equal to the GET's body.
import { isDeepStrictEqual } from 'node:util'
import { loadFigures, loadMedians, measureInRounds, throughputRatio } from './alternate.js'
import { startServer } from './child.js'
import { AGENT, body } from './http.js'
import { round, type Row, type Verdict } from './report.js'
import type { BenchSettings } from './settings.js'
import { FLOW_ONLY } from './servers/options.js'

/** The share of the HTTP agent GET's throughput a tools/call of the same page must reach. */
const MCP_TARGET = 0.9

/** Offsets spread over the 1,240-entry ledger, cycled by every connection. */
const OFFSETS = [0, 300, 600, 900, 1150]

/** What a stock client sends once initialized: JSON-RPC over POST, asking for JSON or an event stream. */
function mcpHeaders (key: string): Record<string, string> {
  return { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' }
}

const call = (offset: number, id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'listLedgerEntries', arguments: { offset, limit: 50 } } })

export async function mcpScenario (databasePath: string, key: string, settings: BenchSettings, log: (line: string) => void): Promise<{ rows: Row[], verdicts: Verdict[], summary: Record<string, unknown> }> {
  const subjects = [
    { id: 'http-agent', server: 'gateway', label: 'HTTP agent GET, 50-entry ledger page', paths: OFFSETS.map((offset) => `/ledger?offset=${offset}&limit=50`), headers: AGENT },
    { id: 'mcp-call', server: 'gateway', label: 'MCP tools/call, the same page', paths: OFFSETS.map(() => '/mcp'), bodies: OFFSETS.map((offset, i) => call(offset, i + 1)), headers: mcpHeaders(key) }
  ] as const
  log(`mcp: ${subjects.map((subject) => subject.label).join('; ')}`)
  const runs = await measureInRounds(subjects, {
    start: async () => await startServer('gateway', databasePath, key, FLOW_ONLY),
    check: async (subject, server) => {
      if (subject.id !== 'mcp-call') return
      for (const [i, offset] of OFFSETS.entries()) await assertSamePage(server.url, key, offset, i + 1)
    }
  }, settings, log)
  const medians = loadMedians(runs)
  const ratio = throughputRatio(runs, 'mcp-call', 'http-agent')
  const perRound = runs['mcp-call'].map((result, i) => round(result.rps / runs['http-agent'][i].rps))
  return {
    rows: subjects.map((subject) => ({
      scenario: '5 MCP against HTTP, a 50-entry ledger page',
      subject: subject.label,
      figures: { ...loadFigures(medians[subject.id]), ...(subject.id === 'mcp-call' ? { 'x HTTP': round(ratio.rps), 'CPU x HTTP': round(ratio.cpu) } : {}) }
    })),
    verdicts: [{
      target: `MCP tools/call >= ${MCP_TARGET} x the HTTP agent GET of the same page (req/s)`,
      measured: `${round(ratio.rps)} x (by CPU per request ${round(ratio.cpu)} x; rounds ${perRound.join(', ')})`,
      holds: ratio.rps >= MCP_TARGET
    }],
    summary: { offsets: OFFSETS, connections: settings.connections, subjects: Object.fromEntries(subjects.map((subject) => [subject.id, { label: subject.label, median: medians[subject.id], rounds: runs[subject.id] }])), ratio, perRound }
  }
}

/** The tool's structured content for `offset` equals the HTTP agent body: the same page is measured. */
async function assertSamePage (url: string, key: string, offset: number, id: number): Promise<void> {
  const http = JSON.parse(await body(`${url}/ledger?offset=${offset}&limit=50`, AGENT)) as { items: unknown[] }
  const response = await fetch(`${url}/mcp`, { method: 'POST', headers: mcpHeaders(key), body: call(offset, id) })
  const text = await response.text()
  // A 2025 revision is answered as one JSON-RPC message (application/json).
  const message = response.headers.get('content-type') === 'application/json' ? JSON.parse(text) as { result?: { structuredContent?: unknown, isError?: boolean } } : undefined
  if (response.status !== 200 || message?.result?.isError === true || !isDeepStrictEqual(message?.result?.structuredContent, http)) {
    throw new Error(`MCP listLedgerEntries at offset ${offset} does not answer the HTTP agent page: ${response.status} ${text.slice(0, 300)}`)
  }
  if (http.items.length !== 50) throw new Error(`the ledger page at offset ${offset} is not 50 entries.`)
}
