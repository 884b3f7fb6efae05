import neostandard from 'neostandard'

export default [
  ...neostandard({ ts: true, ignores: ['dist/**', 'coverage/**', '.tap/**', 'openapi/**'] }),
  // A type and the `as const` object of its values share a name on purpose (see conventions).
  { rules: { '@typescript-eslint/no-redeclare': 'off' } }
]
