// test/routes/kept-answers.test.ts again, every app on PostgreSQL in a fresh schema: a write is read
// by the next request there too.
import t from 'tap'
import { onPostgres } from '../../helpers/app.js'

await onPostgres(t, () => import('../kept-answers.test.js'))
