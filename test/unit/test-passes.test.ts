/**
 * `npm test` runs two ava passes: the main suite (package.json "ava"), then the timing-sensitive
 * files (test/ava.timing.config.js) alone. A timing file the main pass also picks up runs beside
 * the whole suite's load, which is what the second pass exists to avoid.
 */
import { readdirSync, readFileSync } from 'node:fs';
import test from 'ava';

// a plain JS config (no declaration file): loaded by a computed specifier, typed here
const TIMING_CONFIG = new URL('../ava.timing.config.js', import.meta.url).href;
const timing = (await import(TIMING_CONFIG)).default as { files: string[]; concurrency: number };
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { ava: { files: string[] } };

test('the main pass leaves test/timing to the timing pass, which runs one file at a time', (t) => {
  t.true(pkg.ava.files.includes('!test/timing/**'), JSON.stringify(pkg.ava.files));
  t.deepEqual(timing.files, ['test/timing/**/*.test.ts']);
  t.is(timing.concurrency, 1);
  t.true(readdirSync(new URL('../timing/', import.meta.url)).some((f) => f.endsWith('.test.ts')));
});
