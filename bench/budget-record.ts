/**
 * `npx node --conditions=gw-source bench/budget-record.ts`: what a budget's hold + settle
 * costs on the LevelDB store with the spend record of issue 38 (one record per key: the
 * lifetime total and the day's, week's and month's, each charge adding to all four, a
 * monthly hold on the month's field) against one counter per period (the layout before: a
 * hold and a charge on `{usd}`). Same store code for both, in process, CPU µs per hold +
 * settle (process.cpuUsage: this thread and the store's I/O threads), in ABBA rounds so
 * drift hits both alike; the median of the rounds is reported, and each round.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openLevelStore } from '../plugins/stores/level/level.ts';
import { PERIODIC, PeriodClock, periodAt } from '../plugins/extensions/budget/period.ts';
import type { Store } from '../lib/store/types.ts';
import { envNumber } from './options.ts';

const NOW = Date.parse('2026-05-31T12:00:00Z');

/** One hold + settle per call, `n` calls; CPU µs per call. */
async function run(store: Store, n: number, layout: 'period-counter' | 'period-record'): Promise<number> {
  const month = periodAt('monthly', NOW)!;
  const fields = new PeriodClock().fieldsAt(NOW);
  const t0 = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    const id = String(i);
    if (layout === 'period-counter') {
      await store.hold('s:k/monthly/2026-05-01', id, 0.01, { field: 'usd', limit: 1e9, ttlMs: 60_000 });
      await store.settle('s:k/monthly/2026-05-01', id, { usd: 0.001 });
    } else {
      await store.hold('s:k', id, 0.01, { field: month.field, limit: 1e9, ttlMs: 60_000 });
      const deltas: Record<string, number> = { usd: 0.001 };
      for (const f of fields) deltas[f] = 0.001;
      await store.settle('s:k', id, deltas);
    }
  }
  const u = process.cpuUsage(t0);
  return (u.user + u.system) / n;
}

const rounds = Math.max(2, Math.round(envNumber('BENCH_BUDGET_ROUNDS', 6)));
const perRound = Math.max(1000, Math.round(envNumber('BENCH_BUDGET_REQUESTS', 20_000)));
const dir = await mkdtemp(join(tmpdir(), 'gw-bench-budget-'));
try {
  const store = (await openLevelStore(dir)).namespace('ext:budget');
  // the record as it stands mid-traffic: this and the previous day, week and month
  const record: Record<string, number> = { usd: 9 };
  for (const p of PERIODIC) {
    record[periodAt(p, NOW)!.field] = 1;
    record[periodAt(p, periodAt(p, NOW)!.start - 1)!.field] = 1;
  }
  await store.incr('s:k', record);
  await store.incr('s:k/monthly/2026-05-01', { usd: 31 });
  await run(store, perRound, 'period-counter');
  await run(store, perRound, 'period-record');
  const a: number[] = [];
  const b: number[] = [];
  for (let r = 0; r < rounds; r++) {
    // ABBA: alternate which layout goes first
    if (r % 2 === 0) {
      a.push(await run(store, perRound, 'period-counter'));
      b.push(await run(store, perRound, 'period-record'));
    } else {
      b.push(await run(store, perRound, 'period-record'));
      a.push(await run(store, perRound, 'period-counter'));
    }
  }
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1]!;
  const f = (x: number) => x.toFixed(1);
  console.log(`budget hold + settle on LevelDB, ${rounds} ABBA rounds x ${perRound}, CPU µs per request (median; each round)`);
  console.log(`  one counter per period             ${f(median(a))} µs   (${a.map(f).join(', ')})`);
  console.log(`  one record, day/week/month fields  ${f(median(b))} µs   (${b.map(f).join(', ')})`);
  await store.close();
} finally {
  await rm(dir, { recursive: true, force: true });
}
