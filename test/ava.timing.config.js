// The timing-sensitive tests, run after the main suite with nothing beside them: they measure
// how long the gateway takes to answer (/health while a large request is handled) or how soon
// a change reaches the other instances (runtime keys and providers over Redis within 2 s),
// which other test files running at once on a 2-core machine would decide instead (a full
// run's load was seen taking the 1 s poll past 2 s). `npm test` runs both.
export default {
  extensions: ['ts'],
  files: ['test/timing/**/*.test.ts'],
  workerThreads: true,
  concurrency: 1,
  timeout: '120s',
  environmentVariables: { GW_FROM_SOURCE: '1' },
  nodeArguments: ['--conditions=gw-source'],
};
