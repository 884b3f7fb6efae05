// test/routes/book-cover.test.ts again, every app on PostgreSQL in a fresh schema: the cover is a
// bytea there, and the same requests get the same bytes from either store.
import t from 'tap'
import { onPostgres } from '../../helpers/app.js'

await onPostgres(t, () => import('../book-cover.test.js'))
