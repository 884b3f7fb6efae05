// `npm run openapi`: writes the committed OpenAPI document from the app itself. Run from the
// project's root (npm does); the freshness test fails until its output is committed.
import { mkdir, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { DOCUMENT_PATH, openApiDocument, renderDocument } from './openapi-document.js'

await mkdir(dirname(DOCUMENT_PATH), { recursive: true })
await writeFile(DOCUMENT_PATH, renderDocument(await openApiDocument()))
process.stdout.write(`Wrote ${DOCUMENT_PATH}.\n`)
