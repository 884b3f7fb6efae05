export { isWindowSource, type Condition, type ConditionOp, type Filterable, type ListSource, type RecordSource, type TextSource, type WindowRead, type WindowSource } from './source.js'
export { arraySource, arrayRecordSource } from './array.js'
export { kyselySource, kyselyRecordSource, type KyselySourceOptions } from './kysely.js'
export { recordTextSource } from './text.js'
