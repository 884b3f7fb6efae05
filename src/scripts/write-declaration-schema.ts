// `npm run schema`: writes the declaration file's JSON Schema where it is committed. Run from the
// project's root (npm does); the freshness test fails until its output is committed.
import { mkdir, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { renderSchema, SCHEMA_PATH } from './declaration-schema.js'

await mkdir(dirname(SCHEMA_PATH), { recursive: true })
await writeFile(SCHEMA_PATH, renderSchema())
process.stdout.write(`Wrote ${SCHEMA_PATH}.\n`)
