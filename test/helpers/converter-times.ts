/**
 * Measures converters at n and 4n and prints one JSON line per workload:
 * `{"name", "n", "ms": [n, 4n], "errors": [...]}`. Run it in a process of its own, single-
 * threaded, as the size test does (`node --single-threaded test/helpers/converter-times.ts
 * [--rounds k] [--root <checkout>] [name…]`): times are the process's CPU time, which V8's
 * helper threads would blur (see `minTimes`). No names: every workload; no root: this checkout.
 */
import { parseArgs } from 'node:util';
import { converterWorkloads, minTimes } from './converter-workloads.ts';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { rounds: { type: 'string', default: '5' }, root: { type: 'string' } } });
for (const w of await converterWorkloads(values.root)) {
  if (positionals.length > 0 && !positionals.includes(w.name)) continue;
  const { ms, errors } = await minTimes(w, w.n, Number(values.rounds), 5000);
  process.stdout.write(`${JSON.stringify({ name: w.name, n: w.n, ms, errors })}\n`);
}
