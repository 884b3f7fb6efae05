// What the load run asks for, round-robin on every connection: both audiences, every kind of route
// (streamed plain lists, agent pages of both paging styles, records, text, a conditional GET, the
// liveness probe), each with the one status it must get.
export interface LoadRequest {
  readonly name: string
  readonly path: string
  readonly headers: Readonly<Record<string, string>>
  readonly expect: number
}

const AGENT = { 'x-audience': 'agent' }
const AGENT_MEDIA_TYPE = { accept: 'application/vnd.audience-gateway.agent+json' }

/** The mix for a server whose bearer key is `key`; `etag` is the agent's ETag of /books/1. */
export function requestMix (key: string, etag: string): LoadRequest[] {
  const signedIn = { authorization: `Bearer ${key}` }
  return [
    { name: 'books, plain (streamed)', path: '/books', headers: signedIn, expect: 200 },
    { name: 'books, agent page', path: '/books?page=2&limit=2', headers: { ...signedIn, ...AGENT }, expect: 200 },
    { name: 'book, plain', path: '/books/1', headers: signedIn, expect: 200 },
    { name: 'book, agent by Accept', path: '/books/1', headers: { ...signedIn, ...AGENT_MEDIA_TYPE }, expect: 200 },
    { name: 'book, agent, If-None-Match', path: '/books/1', headers: { ...signedIn, ...AGENT, 'if-none-match': etag }, expect: 304 },
    { name: 'books with authors, agent', path: '/books/with-authors?page=1&limit=3', headers: { ...signedIn, ...AGENT }, expect: 200 },
    { name: 'book text, plain', path: '/books/2/text', headers: signedIn, expect: 200 },
    { name: 'book text, agent window', path: '/books/2/text?start_line=101&end_line=150', headers: { ...signedIn, ...AGENT }, expect: 200 },
    { name: 'invoices, plain (streamed)', path: '/invoices', headers: signedIn, expect: 200 },
    { name: 'invoices, agent page', path: '/invoices', headers: { ...signedIn, ...AGENT }, expect: 200 },
    { name: 'ledger, plain (streamed, 1240 rows)', path: '/ledger', headers: {}, expect: 200 },
    { name: 'ledger, agent offset page', path: '/ledger?offset=600&limit=100', headers: AGENT, expect: 200 },
    { name: 'liveness', path: '/healthz', headers: {}, expect: 200 }
  ]
}
