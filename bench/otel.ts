/**
 * `npm run bench -- --only otel`: the otel extension's cost. Two gw processes on one upstream,
 * one without extensions and one with `[extensions.otel]` at sampling 1.0 exporting spans and
 * metrics over OTLP/protobuf to a local receiver (the bench upstream accepts /v1/traces and
 * /v1/metrics), each warmed, then measured in ABBA order (off, on, on, off per cycle) so the
 * machine's drift hits both alike: throughput at 50 connections (JSON and 20-chunk streams)
 * and the added p50 latency at 1 connection. Aim: throughput with otel ≥ 0.9× without.
 * Knobs: BENCH_OTEL_CYCLES (2), BENCH_OTEL_WARMUP_SECONDS (5), BENCH_SECONDS, BENCH_OTEL_SAMPLING
 * (1.0), BENCH_OTEL_TOML
 * (lines added to the on side's `[extensions.otel]`, e.g. `metrics = false`, to see what a part costs).
 */
import { abba, withPair } from './abba.ts';
import { ADMIN } from './setup.ts';
import { measurePhase } from './measure.ts';
import { envNumber, toTarget } from './options.ts';
import { runLoad } from './load.ts';
import { pool, type Pooled } from './headline.ts';
import { chat, chatPath, chatStream, otelOn, plain } from './scenarios.ts';

/** The name `--only` knows it by. */
export const OTEL = 'otel';

/** One workload measured with otel off and on. */
export interface OtelRow {
  what: string;
  off: Pooled;
  on: Pooled;
  /** on / off throughput. */
  ratio: number;
}

export interface OtelResult {
  rows: OtelRow[];
  /** Spans the receiver accepted and spans dropped, from the otel gw's /metrics. */
  exported: number;
  dropped: number;
}

const note = (s: string) => process.stderr.write(`otel: ${s}\n`);

/** Measures every row; starts and stops its own children. */
export async function measureOtel(): Promise<OtelResult> {
  const cycles = Math.max(1, Math.round(envNumber('BENCH_OTEL_CYCLES', 2)));
  const warm = envNumber('BENCH_OTEL_WARMUP_SECONDS', 5);
  return withPair(plain, otelOn, async ({ off, on, phase }) => {
    const workloads: Array<[string, typeof chat, number]> = [
      ['JSON chat, 50 connections', chat, 50],
      ['20-chunk stream, 50 connections', chatStream, 50],
      ['JSON chat, 1 connection (added p50)', chat, 1],
    ];
    note(`warming each process: ${warm} s per workload…`);
    for (const [, body, c] of workloads) for (const g of [off, on]) await runLoad(toTarget(g.url, { path: chatPath, body }, true), c, warm / workloads.length);
    const rows: OtelRow[] = [];
    for (const [what, body, c] of workloads) {
      note(`${what}: off, on, on, off × ${cycles}…`);
      const runs = await abba(off, on, cycles, (g) => measurePhase(toTarget(g.url, { path: chatPath, body }, true), { ...phase(c), gwPid: g.child.proc.pid! }));
      const a = pool(runs.off);
      const b = pool(runs.on);
      rows.push({ what, off: a, on: b, ratio: b.rps / a.rps });
    }
    const metrics = await (await fetch(`${on.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } })).text();
    const sample = (re: RegExp) => [...metrics.matchAll(re)].reduce((s, m) => s + Number(m[1]), 0);
    return {
      rows,
      exported: sample(/^gw_otel_spans_exported_total (\S+)$/gm),
      dropped: sample(/^gw_otel_spans_dropped_total\{[^}]*\} (\S+)$/gm),
    };
  });
}

/** The report: per workload req/s, p50, CPU per request off and on, and the ratio. */
export function formatOtel(r: OtelResult): string {
  const lines = [
    'otel extension (sampling 1.0, OTLP/protobuf to a local receiver) vs none, ABBA',
    `${'workload'.padEnd(38)}${'req/s off'.padStart(11)}${'req/s on'.padStart(10)}${'ratio'.padStart(8)}${'p50 off'.padStart(9)}${'p50 on'.padStart(8)}${'+p50 ms'.padStart(9)}${'cpu off'.padStart(9)}${'cpu on'.padStart(8)}`,
  ];
  for (const row of r.rows)
    lines.push(
      `${row.what.padEnd(38)}${row.off.rps.toFixed(0).padStart(11)}${row.on.rps.toFixed(0).padStart(10)}${row.ratio.toFixed(3).padStart(8)}${row.off.p50.toFixed(2).padStart(9)}${row.on.p50.toFixed(2).padStart(8)}${(row.on.p50 - row.off.p50).toFixed(3).padStart(9)}${row.off.cpuMsPerReq.toFixed(3).padStart(9)}${row.on.cpuMsPerReq.toFixed(3).padStart(8)}`,
    );
  lines.push(`spans exported ${r.exported}, dropped ${r.dropped}; aim: throughput on ≥ 0.9× off`);
  return `${lines.join('\n')}\n`;
}
