// test/mcp/tools.test.ts again, every app on PostgreSQL in a fresh schema: the same tools, the same
// answers, the same walk, from either store.
import t from 'tap'
import { onPostgres } from '../helpers/app.js'

await onPostgres(t, () => import('./tools.test.js'))
