/**
 * Time of every converter at n and 4n items (test/helpers/converter-workloads.ts), for this
 * checkout and optionally another one (`--before <dir>`: e.g. a `git archive` of main with a
 * `node_modules` link), as a Markdown table. A linear converter takes about 4× as long at 4n;
 * the size test (test/unit/linear-converters.test.ts) fails above 6×.
 *
 *   node bench/linear.ts [--before <dir>] [--only <substring>] [--repeats <k>] [--scale <x>]
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { converterWorkloads, MEASURE_FLAGS, minTimes } from '../test/helpers/converter-workloads.ts';

if (!process.execArgv.includes('--single-threaded')) {
  execFileSync(process.execPath, [...MEASURE_FLAGS, ...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit' });
  process.exit(0);
}

const { values } = parseArgs({
  options: { before: { type: 'string' }, only: { type: 'string' }, repeats: { type: 'string', default: '7' }, scale: { type: 'string', default: '1' } },
});
const repeats = Number(values.repeats);
/** Multiplies every workload's n (the size test's sizes are small, to stay quick and clear of cache effects). */
const scale = Number(values.scale);
const here = join(import.meta.dirname, '..');
const roots = values.before ? [values.before, here] : [here];
const sets = await Promise.all(roots.map((r) => converterWorkloads(r)));

/** Wall time one converter may take at its sizes; past it (a super-linear one at 4n) the cell says so. */
const BUDGET_MS = 20_000;
const fmt = (ms: number, err: string | undefined) =>
  err ? err.split(':')[0]! : !Number.isFinite(ms) ? `> ${BUDGET_MS / 1000} s` : ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2);
const head = roots.length === 2 ? '| converter | n | before: n ms | 4n ms | ratio | after: n ms | 4n ms | ratio |' : '| converter | n | n ms | 4n ms | ratio |';
console.log(head);
console.log(head.replace(/[^|]+/g, '---'));
for (let i = 0; i < sets[0]!.length; i++) {
  const name = sets[0]![i]!.name;
  if (values.only && !name.includes(values.only)) continue;
  const n = Math.round(sets[0]![i]!.n * scale);
  const cells: string[] = [name, String(n)];
  for (const set of sets) {
    const w = set.find((x) => x.name === name)!;
    const { ms, errors } = await minTimes(w, n, repeats, BUDGET_MS);
    const measured = !errors[0] && !errors[1] && Number.isFinite(ms[0]!) && Number.isFinite(ms[1]!);
    cells.push(fmt(ms[0]!, errors[0]), fmt(ms[1]!, errors[1]), measured ? `${(ms[1]! / ms[0]!).toFixed(1)}×` : '-');
  }
  console.log(`| ${cells.join(' | ')} |`);
}
