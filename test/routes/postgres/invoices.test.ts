// test/routes/invoices.test.ts again, every app on PostgreSQL in a fresh schema: the same requests get
// the same answers from either store.
import t from 'tap'
import { onPostgres } from '../../helpers/app.js'

await onPostgres(t, () => import('../invoices.test.js'))
