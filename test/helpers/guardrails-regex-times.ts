/**
 * Times a `regex` check's detector on patterns written to backtrack, at n and 4n characters,
 * and prints one JSON line per pattern: `{"name", "n", "ms": [n, 4n], "errors": [...]}`. Run
 * it in a process of its own, single-threaded (MEASURE_FLAGS), as the size test does.
 */
import { fileURLToPath } from 'node:url';
import { regexDetector } from '../../plugins/extensions/guardrails/detectors/regex.ts';
import { minTimes, type Workload } from './converter-workloads.ts';

/** [name, pattern, the text of n characters]: catastrophic for a backtracking engine, each. */
export const CATASTROPHIC: ReadonlyArray<readonly [string, string, (n: number) => string]> = [
  ['(a+)+$ on a…a!', '(a+)+$', (n) => `${'a'.repeat(n)}!`],
  ['(a|aa)*b on a…a', '(a|aa)*b', (n) => 'a'.repeat(n)],
  ['(x+x+)+y on x…x', '(x+x+)+y', (n) => 'x'.repeat(n)],
  ['^(\\w+\\s?)*$ on words!', '^(\\w+\\s?)*$', (n) => `${'word '.repeat(n / 5)}!`],
];

const N = 12_500;

const workloads: Workload[] = CATASTROPHIC.map(([name, pattern, text]) => ({
  name,
  n: N,
  prepare(n: number) {
    const detector = regexDetector({ patterns: [pattern], entity: 'x', maxLength: 256 });
    const input = text(n);
    return () => detector.find(input);
  },
}));

// measured only when run, not when the test imports the patterns
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const w of workloads) {
    const { ms, errors } = await minTimes(w, w.n, 5, 5000);
    process.stdout.write(`${JSON.stringify({ name: w.name, n: w.n, ms, errors })}\n`);
  }
}
