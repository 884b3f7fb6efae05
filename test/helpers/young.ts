// What V8's young-generation collector finds alive while some work runs: a page's rows die with the
// request that read them, so a young collection should find almost none of them alive. Read with
// V8's own GC profiler, which sees the whole process: a test using it runs in a process of its own.
import { GCProfiler } from 'node:v8'

export interface Young {
  /** Young collections while the work ran. */
  readonly collections: number
  /** The young generation's bytes before them, and what they found alive: kept young or promoted. */
  readonly before: number
  readonly alive: number
}

/** What the young collections during `work` found alive, after a warm-up of the same work. */
export async function youngCollections (work: () => Promise<void>): Promise<Young> {
  await work()
  const profiler = new GCProfiler()
  profiler.start()
  await work()
  const { statistics } = profiler.stop()
  let collections = 0
  let before = 0
  let alive = 0
  for (const { gcType, beforeGC, afterGC } of statistics) {
    if (gcType !== 'Scavenge') continue
    collections++
    before += used(beforeGC, 'new_space')
    alive += used(afterGC, 'new_space') + Math.max(0, used(afterGC, 'old_space') - used(beforeGC, 'old_space'))
  }
  return { collections, before, alive }
}

/** What the collections found alive, as a share of the young generation's bytes: `12.3 %`. */
export function aliveShare ({ alive, before }: Young): string {
  return `${(100 * alive / before).toFixed(1)} %`
}

type HeapAt = ReturnType<GCProfiler['stop']>['statistics'][number]['beforeGC']

/** The bytes `space` held, as the profiler saw them before or after one collection. */
function used ({ heapSpaceStatistics }: HeapAt, space: string): number {
  return heapSpaceStatistics.find((entry) => entry.spaceName === space)?.spaceUsedSize ?? 0
}
