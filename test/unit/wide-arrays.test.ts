/**
 * Arrays of 130,000 items and more, where gw used to spread one into function arguments
 * (`push(...x)`, `Math.max(...x)`): past ~125,000 elements on node's main-thread stack V8
 * throws RangeError, which was a 500 for the request (issue 23). Each case is one of those
 * places, run on a stack of the main thread's size (test/helpers/wide-array-cases.ts).
 */
import { Worker } from 'node:worker_threads';
import test from 'ava';
import { WIDE } from '../helpers/wide-array-cases.ts';

const CASES = new URL('../helpers/wide-array-cases.ts', import.meta.url);

type Outcome = { value?: unknown; error?: string };

/**
 * Runs the named cases in one worker whose stack is node's main-thread default (984 KB,
 * ~1 MB), one after the other (gw's modules load once); each case's outcome by name.
 */
function runAll(names: string[]): Map<string, Promise<Outcome>> {
  const settle = new Map<string, (o: Outcome) => void>();
  const out = new Map(names.map((n) => [n, new Promise<Outcome>((resolve) => settle.set(n, resolve))]));
  const w = new Worker(CASES, { workerData: names, resourceLimits: { stackSizeMb: 1 } });
  let left = names.length;
  w.on('message', (m: Outcome & { name: string }) => {
    settle.get(m.name)?.(m);
    if (--left === 0) void w.terminate();
  });
  // a worker that dies (a stack overflow outside a case's try) fails every case still waiting
  w.once('error', (err) => {
    for (const resolve of settle.values()) resolve({ error: `worker: ${err.message}` });
  });
  return out;
}

const cases: Array<[string, unknown]> = [
  ['messages tool results', { messages: WIDE, last: `t${WIDE - 1}` }],
  ['messages stop sequences', { type: 'message_delta', delta: { stop_reason: 'stop_sequence', stop_sequence: `stop-${WIDE - 1}` } }],
  ['gemini function responses', { messages: 2 + WIDE, first: 'c0', last: `c${WIDE - 1}` }],
  ['anthropic system parts', { systemEnd: `t${WIDE - 1}` }],
  ['gemini system parts and merged turns', { system: WIDE, contents: 1, parts: 1 + WIDE }],
  [
    'responses input items',
    [
      { contents: ['a0', 'a1'], more: true },
      { contents: [`b${WIDE - 1}`], more: false },
    ],
  ],
  ['cli table', { lines: WIDE + 1, head: 'name' }],
];

const outcomes = runAll(cases.map(([name]) => name));

for (const [name, expected] of cases) {
  test(`${name}: 130,000 items on a main-thread stack`, async (t) => {
    const r = await outcomes.get(name)!;
    t.is(r.error, undefined);
    t.like(r.value as object, expected as object);
  });
}
