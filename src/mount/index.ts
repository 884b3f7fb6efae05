export { mountRoute } from './route.js'
export {
  MountError, type LineOptions, type ListMount, type Mount, type MountSettings, type OffsetOptions, type PageOptions, type RetrieveMount, type TextMount
} from './definition.js'
export { jsonArrayStream } from './json-array.js'
