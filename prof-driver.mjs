import { startServer } from './dist/test/bench/child.js'
import { measureLoad } from './dist/test/bench/load.js'
const server = await startServer('gateway', '/tmp/prof/bench.db', 'bench-key-0123456789abcdef', { BENCH_TIME_ZONE: 'Europe/Paris' })
const paths = [0, 300, 600, 900, 1150].map((o) => `/ledger?offset=${o}&limit=50`)
const r = await measureLoad(server.url, server.pid, { paths, headers: { 'x-audience': 'agent' }, connections: 10, seconds: 6 })
console.log(r)
await server.stop()
