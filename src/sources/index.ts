export type { ListSource, RecordSource } from './source.js'
export { arraySource, arrayRecordSource } from './array.js'
export { kyselySource, kyselyRecordSource, type KyselySourceOptions } from './kysely.js'
