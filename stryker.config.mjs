// Mutation testing of the domain rules: `npm run test:mutation` (extra arguments go to Stryker, e.g.
// `npm run test:mutation -- --mutate 'src/domain/admission/**'`). See docs/testing.md.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  mutate: ['src/domain/**/*.ts'],
  testRunner: 'mocha',
  mochaOptions: {
    // The same files as `npm test`, setup first. MUTATION_SPEC (comma-separated files or globs)
    // narrows the run to an area's own tests: static mutants then cost that subset instead of the
    // whole suite, and the score is a lower bound (a test left out might have killed a survivor).
    spec: [
      'test/setup.ts',
      ...(process.env.MUTATION_SPEC
        ? process.env.MUTATION_SPEC.split(',')
        : ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts']),
    ],
  },
  // Tests load TypeScript through tsx, like `npm test`.
  testRunnerNodeArgs: ['--import', 'tsx'],
  // tsx compiles the decorators only with the project's tsconfig.json, found from the working folder,
  // so mutants are written into the files themselves (restored when the run ends). tsx does not
  // type-check, so no other file needs a `@ts-nocheck`: only the mutated files are touched.
  inPlace: true,
  disableTypeChecks: false,
  coverageAnalysis: 'perTest',
  incremental: true,
  incrementalFile: process.env.MUTATION_SPEC
    ? 'reports/mutation/stryker-incremental-narrow.json'
    : 'reports/mutation/stryker-incremental.json',
  reporters: ['clear-text', 'progress', 'json', 'html'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  concurrency: 2,
  timeoutMS: 10_000,
  timeoutFactor: 2,
  cleanTempDir: 'always',
  tempDirName: '.stryker-tmp',
};
