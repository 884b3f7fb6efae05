export type { ListSource, RecordSource, TextSource } from './source.js'
export { arraySource, arrayRecordSource } from './array.js'
export { kyselySource, kyselyRecordSource, type KyselySourceOptions } from './kysely.js'
export { recordTextSource } from './text.js'
