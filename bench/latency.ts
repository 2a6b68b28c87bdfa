/**
 * `npm run bench -- --only latency-sketches`: what the usage extension's latency sketches
 * (plugins/extensions/usage/latency.ts) cost per request.
 *
 * - In process: ns per request of LatencyRecorder.observe (three DDSketch inserts) plus the
 *   amortized flush (bins → bucket counters, into an in-memory store stub), over 12 series.
 * - End to end: two gw processes with `[extensions.usage]`, `latency = false` and `true`,
 *   measured in ABBA order (off, on, on, off per cycle), every run reported: req/s and gw
 *   CPU ms per request at 50 connections, JSON and 20-chunk streams.
 * Aim: the sketches cost under 2% of throughput.
 * Knobs: BENCH_LATENCY_CYCLES (2), BENCH_SECONDS.
 */
import type { FinishedRequest, Store } from 'gw/plugin';
import { LatencyRecorder } from '../plugins/extensions/usage/latency.ts';
import { abba, withPair } from './abba.ts';
import { runLoad } from './load.ts';
import { measurePhase } from './measure.ts';
import { envNumber, toTarget } from './options.ts';
import { pool, type Pooled } from './headline.ts';
import { chat, chatPath, chatStream, usageLatency } from './scenarios.ts';

/** The name `--only` knows it by. */
export const LATENCY = 'latency-sketches';

export interface LatencyRun {
  setting: 'off' | 'on';
  rps: number;
  cpuMsPerReq: number;
}
export interface LatencyRow {
  what: string;
  runs: LatencyRun[];
  off: Pooled;
  on: Pooled;
  /** on / off throughput. */
  ratio: number;
}
export interface LatencyResult {
  /** ns per request in process: observe, and observe + its share of the flushes. */
  observeNs: number;
  withFlushNs: number;
  rows: LatencyRow[];
}

const note = (s: string) => process.stderr.write(`latency-sketches: ${s}\n`);

/** ns per request of observe (and with the flushes) over `n` requests spread on 12 (model, provider) series. */
export async function measureObserve(n = 300_000): Promise<{ observeNs: number; withFlushNs: number }> {
  // a store that takes writes and does nothing: the flush's own CPU, not the backend's
  const stub = { bucketIncr: async () => undefined } as unknown as Store;
  let t = Date.now();
  const rec = new LatencyRecorder(
    stub,
    { bucketMs: 3_600_000, retentionMs: 90 * 86_400_000 },
    6 * 3_600_000,
    () => t,
    () => undefined,
  );
  const reqs: FinishedRequest[] = [];
  for (let i = 0; i < 12; i++) {
    const rc = { provider: `p${i % 3}`, servedModel: `model-${i % 4}`, cacheHit: false, stream: i % 2 === 0, attempts: 1, upstreamMs: 0 };
    reqs.push({ status: 200, totalMs: 0, ttfbMs: 0, rc } as unknown as FinishedRequest);
  }
  const run = (count: number, flushEvery: number) => {
    const start = process.hrtime.bigint();
    let flushNs = 0n;
    for (let i = 0; i < count; i++) {
      const f = reqs[i % 12]! as { totalMs: number; ttfbMs: number; rc: { upstreamMs: number } };
      f.totalMs = 50 + ((i * 7919) % 3000);
      f.ttfbMs = f.totalMs / 3;
      f.rc.upstreamMs = f.totalMs - 0.5;
      rec.observe(f as unknown as FinishedRequest);
      if (i % flushEvery === flushEvery - 1) {
        const s = process.hrtime.bigint();
        void rec.flush();
        flushNs += process.hrtime.bigint() - s;
        t += 1000;
      }
    }
    const total = Number(process.hrtime.bigint() - start);
    return { total: total / count, flush: Number(flushNs) / count };
  };
  run(n / 3, 5000); // warm the JIT
  // 5,000 requests per one-second flush: a busy instance
  const r = run(n, 5000);
  await rec.close();
  return { observeNs: r.total - r.flush, withFlushNs: r.total };
}

/** Measures in process, then end to end; starts and stops its own children. */
export async function measureLatency(): Promise<LatencyResult> {
  const micro = await measureObserve();
  note(`observe ${micro.observeNs.toFixed(0)} ns/request, ${micro.withFlushNs.toFixed(0)} ns with the flushes`);
  const cycles = Math.max(1, Math.round(envNumber('BENCH_LATENCY_CYCLES', 2)));
  return withPair(usageLatency(false), usageLatency(true), async ({ off, on, phase }) => {
    const workloads: Array<[string, typeof chat]> = [
      ['JSON chat, 50 connections', chat],
      ['20-chunk stream, 50 connections', chatStream],
    ];
    for (const [, body] of workloads) for (const g of [off, on]) await runLoad(toTarget(g.url, { path: chatPath, body }, true), 50, 2);
    const rows: LatencyRow[] = [];
    for (const [what, body] of workloads) {
      note(`${what}: off, on, on, off × ${cycles}…`);
      const runs: LatencyRun[] = [];
      const by = await abba(
        off,
        on,
        cycles,
        (g) => measurePhase(toTarget(g.url, { path: chatPath, body }, true), { ...phase(50), gwPid: g.child.proc.pid! }),
        (setting, r) => runs.push({ setting, rps: r.load.rps, cpuMsPerReq: r.gwCpuMsPerReq ?? Number.NaN }),
      );
      const a = pool(by.off);
      const b = pool(by.on);
      rows.push({ what, runs, off: a, on: b, ratio: b.rps / a.rps });
    }
    return { ...micro, rows };
  });
}

/** The report: the in-process cost, then every ABBA run and the pooled ratio per workload. */
export function formatLatency(r: LatencyResult): string {
  const lines = [
    'latency sketches (usage extension, latency = true vs false), ABBA',
    `in process: observe ${r.observeNs.toFixed(0)} ns/request, ${r.withFlushNs.toFixed(0)} ns with the once-a-second flushes (5,000 requests per flush, 12 series)`,
  ];
  for (const row of r.rows) {
    lines.push(`${row.what}: ${row.runs.map((x) => `${x.setting} ${x.rps.toFixed(0)} req/s ${x.cpuMsPerReq.toFixed(3)} ms cpu`).join(' | ')}`);
    lines.push(
      `  pooled: off ${row.off.rps.toFixed(0)} req/s ${row.off.cpuMsPerReq.toFixed(3)} ms cpu/req; on ${row.on.rps.toFixed(0)} req/s ${row.on.cpuMsPerReq.toFixed(3)} ms cpu/req; ratio ${row.ratio.toFixed(3)}; cpu +${(((row.on.cpuMsPerReq - row.off.cpuMsPerReq) / row.off.cpuMsPerReq) * 100).toFixed(1)}%; sketches alone ${((r.withFlushNs / 1e6 / row.off.cpuMsPerReq) * 100).toFixed(2)}% of gw's cpu per request`,
    );
  }
  lines.push('aim: the sketches cost under 2% of throughput');
  return `${lines.join('\n')}\n`;
}
