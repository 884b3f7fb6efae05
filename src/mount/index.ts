export { mountRoute } from './route.js'
export { MountError, type ListMount, type Mount, type MountSettings, type PageOptions, type RetrieveMount } from './definition.js'
export { jsonArrayStream } from './json-array.js'
