// How hard the property tests draw. Each property names its standard number of inputs, drawn by
// `npm test` on every run; FC_SCALE multiplies them all (`.ci/run` draws four times as many on one
// Node line, so CI searches further than a contributor waits for). FC_RUNS sets one number for every
// property, to chase a failure; FC_SEED draws other inputs. Draws are repeatable: a failure prints
// its seed and its smallest counterexample, and a larger run begins with the smaller run's inputs.

/** The seed a file's properties draw from: FC_SEED, or the file's own. */
export function propertySeed (fileDefault: number): number {
  return Number(process.env.FC_SEED ?? fileDefault)
}

/** How many inputs a property draws, given its standard number. */
export function propertyRuns (standard: number): number {
  const fixed = process.env.FC_RUNS
  if (fixed !== undefined && fixed !== '') return Number(fixed)
  return Math.ceil(standard * Number(process.env.FC_SCALE ?? 1))
}
