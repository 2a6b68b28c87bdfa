/**
 * Every converter (each client format and provider kind, both directions, streams included)
 * takes time linear in its input (issue 23): 4× the items may take at most 6× the time. A
 * per-item copy, splice or search (merging same-role turns by copying the array, pairing
 * Gemini function responses with findIndex + splice) made it 8× to 16× at these sizes (and
 * 80× at 48,000 turns: 2 minutes). Linear code reaches 5.2× here: the 4n call's working set
 * outgrows the caches that the n calls fit in, most when other test files run beside it (the
 * Responses request converter, 138–244 ns an item from 375 to 24,000 items, measured 5.1×,
 * 5.2× and 5.1× in one suite run), so the bound sits between the two. The workloads and
 * their sizes are in test/helpers/converter-workloads.ts; `node bench/linear.ts` prints the
 * same measurement as a table, for this checkout and an older one.
 *
 * The times are CPU times measured in a child process run single-threaded (see `minTimes`:
 * the minimum over interleaved rounds, each after a full GC), so a busy machine does not
 * stretch them. A converter over the bound is measured again, up to three times in all, and
 * fails only when every measurement is over it; a super-linear one is over it every time.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import test from 'ava';
import { converterWorkloads, MEASURE_FLAGS } from '../helpers/converter-workloads.ts';

const BOUND = 6;
const ATTEMPTS = 3;
const RUNNER = fileURLToPath(new URL('../helpers/converter-times.ts', import.meta.url));
/** Another checkout's converters, to see this test fail on code before the fix (e.g. a `git archive` of it with a `node_modules` link). */
const ROOT = process.env.GW_LINEAR_ROOT;

interface Times {
  name: string;
  n: number;
  ms: [number, number];
  errors: Array<string | undefined>;
}

/** Times of the named workloads (all when none), from a fresh single-threaded process. */
async function measure(names: string[] = []): Promise<Times[]> {
  const { stdout } = await promisify(execFile)(process.execPath, [...MEASURE_FLAGS, RUNNER, ...(ROOT ? ['--root', ROOT] : []), ...names], {
    maxBuffer: 1 << 20,
  });
  return stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Times);
}

const ratio = (t: Times) => t.ms[1] / t.ms[0];
const describe = (t: Times) => `${t.ms[0].toFixed(2)} ms → ${t.ms[1].toFixed(2)} ms (${ratio(t).toFixed(1)}×)`;

const workloads = await converterWorkloads();
/** name → every measurement taken. */
const seen = new Map<string, Times[]>();

test.before(async () => {
  let todo: string[] = [];
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const got = await measure(todo);
    for (const t of got) seen.set(t.name, [...(seen.get(t.name) ?? []), t]);
    todo = got.filter((t) => t.errors.every((e) => e === null) && !(ratio(t) <= BOUND)).map((t) => t.name);
    if (todo.length === 0) break;
  }
});

test('every converter is covered: each client format and provider kind, request and answer, stream or not', (t) => {
  const names = workloads.map((w) => w.name);
  for (const side of ['format anthropic-messages', 'format gemini', 'format openai-responses', 'kind anthropic', 'kind gemini'])
    for (const dir of ['request', 'response', 'stream'])
      t.true(
        names.some((n) => n.startsWith(`${side}: ${dir}`)),
        `${side} ${dir}`,
      );
  // the content view: each protocol's reader, a request, an answer and a stream read and masked
  for (const protocol of ['openai-chat', 'anthropic-messages', 'openai-responses', 'gemini'])
    for (const dir of ['request', 'response', 'stream'])
      t.true(
        names.some((n) => n.startsWith(`content ${protocol}: ${dir}`)),
        `content ${protocol} ${dir}`,
      );
});

for (const w of workloads) {
  test(`${w.name}: 4× the items take at most ${BOUND}× the time`, (t) => {
    const times = seen.get(w.name) ?? [];
    t.true(times.length > 0, 'measured');
    for (const m of times) t.deepEqual(m.errors, [null, null], 'ran without an error');
    t.log(`n = ${w.n}: ${times.map(describe).join('; ')}`);
    t.true(
      times.some((m) => ratio(m) <= BOUND),
      `super-linear: ${times.map(describe).join('; ')}`,
    );
  });
}
