// The timing-sensitive tests, run after the main suite with nothing beside them: they measure
// how long the gateway takes to answer (/health while a large request is handled), which other
// test files running at once on a 2-core machine would decide instead. `npm test` runs both.
export default {
  extensions: ['ts'],
  files: ['test/timing/**/*.test.ts'],
  workerThreads: true,
  concurrency: 1,
  timeout: '120s',
  environmentVariables: { GW_FROM_SOURCE: '1' },
  nodeArguments: ['--conditions=gw-source'],
};
