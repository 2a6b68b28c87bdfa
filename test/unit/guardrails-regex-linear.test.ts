/**
 * A `regex` check takes time linear in the text even for a pattern written to backtrack
 * (issue 41: `(a+)+$` on 50,000 `a`s): 4× the text may take at most 6× the time, measured as
 * test/unit/linear-converters.test.ts measures converters (CPU time of a single-threaded child
 * process, the minimum of interleaved rounds, a fresh process per attempt, three attempts).
 * A backtracking engine takes exponential time on these: it would not finish at all.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import test from 'ava';
import { MEASURE_FLAGS } from '../helpers/converter-workloads.ts';
import { CATASTROPHIC } from '../helpers/guardrails-regex-times.ts';

const BOUND = 6;
const ATTEMPTS = 3;
/** Generous: 50,000 characters take about a millisecond; a backtracking engine would take years. */
const CEILING_MS = 500;
const RUNNER = fileURLToPath(new URL('../helpers/guardrails-regex-times.ts', import.meta.url));

interface Times {
  name: string;
  n: number;
  ms: [number, number];
  errors: Array<string | null>;
}

async function measure(): Promise<Times[]> {
  const { stdout } = await promisify(execFile)(process.execPath, [...MEASURE_FLAGS, RUNNER], { maxBuffer: 1 << 20 });
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Times);
}

const ratio = (t: Times) => t.ms[1] / t.ms[0];

test('catastrophic patterns take linear time on 12,500 and 50,000 characters', async (t) => {
  const seen = new Map<string, Times[]>();
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const got = await measure();
    for (const m of got) seen.set(m.name, [...(seen.get(m.name) ?? []), m]);
    if (got.every((m) => ratio(m) <= BOUND)) break;
  }
  t.is(seen.size, CATASTROPHIC.length);
  for (const [name, times] of seen) {
    const described = times.map((m) => `${m.ms[0].toFixed(2)} ms → ${m.ms[1].toFixed(2)} ms (${ratio(m).toFixed(1)}×)`).join('; ');
    t.log(`${name}: ${described}`);
    for (const m of times) t.deepEqual(m.errors, [null, null], `${name} ran without an error`);
    t.true(
      times.some((m) => ratio(m) <= BOUND),
      `${name} is super-linear: ${described}`,
    );
    t.true(
      times.every((m) => m.ms[1] < CEILING_MS),
      `${name}: ${described}`,
    );
  }
});
