/**
 * `npm run bench -- --only affinity`: prompt-cache affinity's cost over HTTP. Two gw
 * processes on one upstream, each with a group of two providers for the bench model: one
 * with `[routing] affinity = false`, one with it on (the default). Each is warmed, then
 * measured in ABBA order (off, on, on, off per cycle) at 50 connections with
 *   - one conversation: the same body every time (a known conversation: a local hit), and
 *   - a new conversation per request (unique bodies: a key computed, a miss, an insert).
 * Aim: throughput with affinity ≥ 0.97× without. The in-process cost per request, without
 * the noise of sockets: bench/affinity-micro.ts.
 * Knobs: BENCH_AFFINITY_CYCLES (2), BENCH_AFFINITY_WARMUP_SECONDS (5), BENCH_SECONDS.
 */
import { abbaPhases, withPair } from './abba.ts';
import type { Pooled } from './headline.ts';
import { runLoad } from './load.ts';
import { envNumber, toTarget } from './options.ts';
import { chat, chatPath, group2 } from './scenarios.ts';

/** The name `--only` knows it by. */
export const AFFINITY = 'affinity';

/** One workload measured with affinity off and on. */
export interface AffinityRow {
  what: string;
  off: Pooled;
  on: Pooled;
  /** on / off throughput. */
  ratio: number;
  /** Per cycle: off, on, on, off req/s. */
  cycles: number[][];
}

const note = (s: string) => process.stderr.write(`affinity: ${s}\n`);

/** Measures every row; starts and stops its own children. */
export async function measureAffinity(): Promise<AffinityRow[]> {
  const cycles = Math.max(1, Math.round(envNumber('BENCH_AFFINITY_CYCLES', 2)));
  const warm = envNumber('BENCH_AFFINITY_WARMUP_SECONDS', 5);
  return withPair(group2(false), group2(true), async (pair) => {
    const { off, on } = pair;
    const workloads: Array<[string, boolean]> = [
      ['JSON chat, one conversation, c50', false],
      ['JSON chat, a new conversation each, c50', true],
    ];
    note(`warming each process: ${warm} s per workload…`);
    for (const [, unique] of workloads) for (const g of [off, on]) await runLoad(toTarget(g.url, { path: chatPath, body: chat, unique }, true), 50, warm);
    const rows: AffinityRow[] = [];
    for (const [what, unique] of workloads) {
      note(`${what}: off, on, on, off × ${cycles}…`);
      const r = await abbaPhases(pair, 50, (g) => toTarget(g.url, { path: chatPath, body: chat, unique }, true), cycles);
      rows.push({ what, off: r.off, on: r.on, ratio: r.on.rps / r.off.rps, cycles: r.cycles });
    }
    return rows;
  });
}

/** The report: per workload req/s, CPU per request (µs) off and on, their difference, and each cycle's req/s. */
export function formatAffinity(rows: AffinityRow[]): string {
  const lines = [
    'prompt-cache affinity on vs off, a group of two providers, ABBA',
    `${'workload'.padEnd(42)}${'req/s off'.padStart(11)}${'req/s on'.padStart(10)}${'ratio'.padStart(8)}${'cpu µs off'.padStart(12)}${'cpu µs on'.padStart(11)}${'+µs'.padStart(8)}`,
  ];
  for (const r of rows) {
    const [a, b] = [r.off.cpuMsPerReq * 1000, r.on.cpuMsPerReq * 1000];
    lines.push(
      `${r.what.padEnd(42)}${r.off.rps.toFixed(0).padStart(11)}${r.on.rps.toFixed(0).padStart(10)}${r.ratio.toFixed(3).padStart(8)}${a.toFixed(1).padStart(12)}${b.toFixed(1).padStart(11)}${(b - a).toFixed(1).padStart(8)}`,
    );
    for (const [i, c] of r.cycles.entries()) lines.push(`  cycle ${i + 1} (off on on off): ${c.map((x) => x.toFixed(0)).join(' ')} req/s`);
  }
  lines.push('aim: throughput on >= 0.97x off');
  return `${lines.join('\n')}\n`;
}
