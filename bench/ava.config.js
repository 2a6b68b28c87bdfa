// The bench's own unit tests (the main suite's globs cover test/ only): npx ava --config bench/ava.config.js
export default {
  extensions: ['ts'],
  files: ['bench/test/**/*.test.ts'],
  workerThreads: false,
  timeout: '30s',
};
