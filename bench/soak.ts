/**
 * `npm run soak`: gw with all five extensions (cache, rate_limit, usage, budget, logging — the
 * bench's ext5 setup, the cache TTL shortened) on LevelDB under a steady closed-loop load of unique prompts (every one a
 * cache miss, every one stored), for a bounded time, watching its memory. Prints RSS (and V8
 * heap used and total, from gw's /metrics) every sample; fails (exit 1) when RSS grew more than 10 %
 * from the minute after the warm-up to the last minute (means of a reading every 5 s: the
 * store's sweep and compaction run every minute, and a single reading in one of them would
 * decide the verdict by where it fell), or when any request failed.
 *
 * The cache keeps entries 60 s (SOAK_CACHE_TTL_SECONDS), not its default 300: with every
 * prompt new, the store fills for one TTL before entries expire as fast as they come, and at
 * 300 s that is half the run; at 60 s the cache has turned over twice by the end of the
 * warm-up and eight times by the end, so expiry is part of what the soak checks.
 *
 * Knobs: `--minutes` / SOAK_MINUTES (10), SOAK_CONNECTIONS (20), SOAK_SAMPLE_SECONDS (30),
 * SOAK_MAX_GROWTH (0.10), SOAK_CACHE_TTL_SECONDS (60). Warm-up: the first 2 minutes (a fifth of
 * shorter runs) and at least two cache TTLs (`warmupSeconds`).
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { mean, rssGrowth, warmupSeconds, promValue, type MemorySample } from './memory.ts';
import { envNumber, toTarget } from './options.ts';
import { dirMiB, rssSplitMiB, stopAll, treeRssMiB } from './procs.ts';
import { chat, chatPath, ext5With } from './scenarios.ts';
import { ADMIN, startGw, startUpstream } from './setup.ts';

const MiB = 1024 * 1024;
/** Seconds between the memory readings the verdict is computed from. */
const TRACE_S = 5;

/**
 * gw's V8 heap, used and total (what V8 holds, garbage included), MiB, from its /metrics
 * (prom-client's default gauges); empty when it does not answer in 2 s.
 */
async function heapMiB(gwUrl: string): Promise<{ used?: number; total?: number }> {
  try {
    const r = await fetch(`${gwUrl}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` }, signal: AbortSignal.timeout(2000) });
    const text = await r.text();
    const mib = (name: string) => {
      const v = promValue(text, name);
      return v === undefined ? undefined : v / MiB;
    };
    return { used: mib('gw_nodejs_heap_size_used_bytes'), total: mib('gw_nodejs_heap_size_total_bytes') };
  } catch {
    return {};
  }
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { minutes: { type: 'string' } } });
  const minutes = values.minutes !== undefined ? Number(values.minutes) : envNumber('SOAK_MINUTES', 10);
  if (!Number.isFinite(minutes) || minutes <= 0) throw new Error(`--minutes must be a positive number, got '${values.minutes}'`);
  const connections = Math.round(envNumber('SOAK_CONNECTIONS', 20));
  const every = envNumber('SOAK_SAMPLE_SECONDS', 30);
  const maxGrowth = envNumber('SOAK_MAX_GROWTH', 0.1);
  const ttl = envNumber('SOAK_CACHE_TTL_SECONDS', 60);
  const total = minutes * 60;
  const warmup = warmupSeconds(total, ttl);

  const up = await startUpstream();
  const gw = await startGw(ext5With('soak', ttl), up.url);
  stopGw = () => gw.stop();
  const pid = gw.child.proc.pid!;
  process.stdout.write(
    `gw soak — ${minutes} min at c=${connections}, all five extensions on LevelDB, unique prompts (cache misses, kept ${ttl} s); warm-up ${warmup} s; sample every ${every} s\n` +
      `     t s   requests   req/s  errors   RSS MiB  mean 60 s     anon     file  heap used  heap total   store on disk (MiB)\n`,
  );
  /** What is printed, every `every` s. */
  const samples: MemorySample[] = [];
  /** Memory every TRACE_S s: what the verdict's per-minute means are taken over. */
  const trace: MemorySample[] = [];
  let ok = 0;
  let failed = 0;
  let lastOk = 0;
  let lastT = 0;
  const t0 = performance.now();
  const traced = (): MemorySample => {
    const split = rssSplitMiB(pid);
    const s: MemorySample = {
      t: (performance.now() - t0) / 1000,
      rssMiB: treeRssMiB(pid),
      anonMiB: split.anon,
      fileMiB: split.file,
      storeMiB: dirMiB(join(gw.dir, 'data')),
    };
    trace.push(s);
    return s;
  };
  const sample = async () => {
    const s = traced();
    const t = s.t;
    const heap = await heapMiB(gw.url);
    s.heapMiB = heap.used;
    samples.push(s);
    const mean60 = mean(trace, t - 60, t, (x) => x.rssMiB, true);
    const rate = t > lastT ? (ok - lastOk) / (t - lastT) : 0;
    lastOk = ok;
    lastT = t;
    const fmt = (v: number | undefined, d: number) => (v === undefined ? '-' : v.toFixed(d));
    process.stdout.write(
      `  ${fmt(t, 0).padStart(6)} ${String(ok).padStart(10)} ${fmt(rate, 0).padStart(7)} ${String(failed).padStart(7)} ${fmt(s.rssMiB, 1).padStart(9)} ${fmt(mean60, 1).padStart(10)} ${fmt(s.anonMiB, 1).padStart(8)} ${fmt(s.fileMiB, 1).padStart(8)} ${fmt(heap.used, 1).padStart(10)} ${fmt(heap.total, 1).padStart(11)} ${fmt(s.storeMiB, 0).padStart(15)}\n`,
    );
  };
  await sample();
  const target = toTarget(gw.url, { path: chatPath, body: chat, unique: true }, true);
  const inst = autocannon({
    url: target.url,
    method: 'POST',
    headers: target.headers,
    body: target.body,
    idReplacement: true,
    connections,
    duration: total,
    sampleInt: 200,
    timeout: 30,
  });
  stopLoad = () => inst.stop();
  inst.on('response', (_c: unknown, status: number) => {
    if (status >= 200 && status < 300) ok++;
    else failed++;
  });
  inst.on('reqError', () => {
    failed++;
  });
  const timer = setInterval(() => void sample(), every * 1000);
  // between printed samples (those are traced too)
  const tracer = setInterval(() => {
    if ((performance.now() - t0) / 1000 - (samples[samples.length - 1]?.t ?? 0) > TRACE_S / 2) traced();
  }, TRACE_S * 1000);
  let result: Awaited<typeof inst>;
  try {
    result = await inst;
  } finally {
    clearInterval(timer);
    clearInterval(tracer);
  }
  // the last sample at the end of the load, unless a tick just took it
  if (total - samples[samples.length - 1]!.t > 1) await sample();
  await gw.stop();
  await stopAll();

  const errors = Math.max(failed, result.errors + result.timeouts + result.non2xx);
  const g = rssGrowth(trace, warmup);
  const span = (w: { from: number; to: number }) => `${w.from.toFixed(0)}–${w.to.toFixed(0)} s`;
  const lines = [
    `requests: ${ok} (${(ok / total).toFixed(0)} req/s), errors: ${errors}`,
    `RSS (sampled every ${TRACE_S} s): max ${Math.max(...trace.map((s) => s.rssMiB)).toFixed(1)} MiB` +
      (g
        ? `; mean over the minute after the warm-up (${span(g.ref)}) ${g.ref.rssMiB.toFixed(1)} MiB, over the last minute (${span(g.last)}) ${g.last.rssMiB.toFixed(1)} MiB: ${g.growth >= 0 ? '+' : ''}${(g.growth * 100).toFixed(1)} % (limit +${(maxGrowth * 100).toFixed(0)} %)`
        : '; too short to compare after the warm-up'),
  ];
  // where the growth is: what gw allocated, or mapped files (LevelDB's tables) following the store
  if (g) {
    const d = (a?: number, b?: number) => ((b ?? NaN) - (a ?? NaN)).toFixed(1);
    lines.push(
      `of which anonymous ${d(g.ref.anonMiB, g.last.anonMiB)} MiB, file-backed ${d(g.ref.fileMiB, g.last.fileMiB)} MiB; store on disk ${d(g.ref.storeMiB, g.last.storeMiB)} MiB`,
    );
  }
  const grew = g !== undefined && g.growth > maxGrowth;
  const pass = !grew && errors === 0 && g !== undefined;
  lines.push(
    pass ? 'soak: PASS' : `soak: FAIL (${[grew && 'RSS grew', errors && 'errors', !g && 'no whole minute after the warm-up'].filter(Boolean).join(', ')})`,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
  return pass ? 0 : 1;
}

let stopLoad: (() => void) | undefined;
/** Stops gw and removes its temp dir (config, LevelDB). */
let stopGw: (() => Promise<void>) | undefined;

process.once('SIGINT', () => {
  process.stderr.write('\ninterrupted: stopping children\n');
  stopLoad?.();
  void Promise.resolve(stopGw?.())
    .then(stopAll)
    .finally(() => process.exit(130));
});

main().then(
  (code) => process.exit(code),
  async (err: Error) => {
    stopLoad?.();
    await stopGw?.();
    await stopAll();
    process.stderr.write(`soak: ${err.stack ?? err.message}\n`);
    process.exit(1);
  },
);
