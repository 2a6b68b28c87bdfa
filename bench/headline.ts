/**
 * The headline figures of issue 14, measured in one run with their own processes (a fast
 * upstream, the bare-proxy floor, gw without extensions, gw with all five; then a slow
 * upstream and a fresh gw for the 5,000 open streams), each checked against its target.
 * `npm run bench -- --only headline`; a full `npm run bench` runs it after the scenarios.
 *
 * Knobs (env): BENCH_SECONDS / BENCH_WARMUP_SECONDS (each throughput and latency run),
 * BENCH_PROCESS_WARMUP_SECONDS (c=50 load on each of the floor, gw and gw with five
 * extensions once, before the first measured run, default 15), BENCH_HEADLINE_CYCLES (ABCCBA
 * cycles of the c=50 runs, default 3),
 * BENCH_REST_SECONDS (idle before the at-rest RSS, default 5), BENCH_RSS_SECONDS (load
 * before the after-load RSS, default 60), BENCH_OPEN_STREAMS (default 5000),
 * BENCH_SLOW_CHUNKS (writes per slow stream, default 8), BENCH_SLOW_GAP_MS (default 1000).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'undici';
import { runLoad, type Target } from './load.ts';
import { measurePhase, type PhaseOptions, type PhaseResult } from './measure.ts';
import { envNumber, toTarget } from './options.ts';
import { treeRssMiB } from './procs.ts';
import { chat, chatPath, chatStream, ext5, plain } from './scenarios.ts';
import { startFloor, startGw, startUpstream, type Upstream } from './setup.ts';
import { Samples, summarize } from './stats.ts';
import { countFrames } from './streams.ts';

/** The name `--only` knows the headline by. */
export const HEADLINE = 'headline';

/** The headline's knobs; the defaults are the issue's figures. */
export interface HeadlineOptions {
  /** Measured and warm-up seconds of each throughput and latency run. */
  seconds: number;
  warmupSeconds: number;
  /**
   * Seconds of c=50 load each server process gets once, before its first measured run: V8
   * optimizes a process's hot path over its first ~10 s of load (a fresh gw measured
   * 0.74 ms of CPU per request where the same code, warmed, took 0.40), and gw has far more
   * code to tier up than the floor. Throughput is compared in the steady state.
   */
  processWarmupSeconds: number;
  /**
   * ABCCBA cycles of the c=50 runs (floor, gw, five extensions). This machine's speed swings
   * between runs by a third (other tenants): more cycles, pooled, average it out, and the
   * ratio of each cycle shows the spread.
   */
  cycles: number;
  /** Idle seconds after startup before the at-rest RSS. */
  restSeconds: number;
  /** Seconds of c=50 load before the after-load RSS. */
  rssSeconds: number;
  /** Streams opened at once against the slow upstream. */
  openStreams: number;
  /** Writes per slow stream, and the pause between two, ms. */
  slowChunks: number;
  slowGapMs: number;
}

/** Reads the knobs from the environment. */
export function headlineOptions(): HeadlineOptions {
  return {
    seconds: envNumber('BENCH_SECONDS', 4),
    warmupSeconds: envNumber('BENCH_WARMUP_SECONDS', 1),
    processWarmupSeconds: envNumber('BENCH_PROCESS_WARMUP_SECONDS', 15),
    cycles: Math.max(1, Math.round(envNumber('BENCH_HEADLINE_CYCLES', 3))),
    restSeconds: envNumber('BENCH_REST_SECONDS', 5),
    rssSeconds: envNumber('BENCH_RSS_SECONDS', 60),
    openStreams: Math.round(envNumber('BENCH_OPEN_STREAMS', 5000)),
    slowChunks: Math.round(envNumber('BENCH_SLOW_CHUNKS', 8)),
    slowGapMs: envNumber('BENCH_SLOW_GAP_MS', 1000),
  };
}

/** Several runs of one target pooled: requests over seconds, CPU per request over all requests. */
export interface Pooled {
  runs: number;
  requests: number;
  rps: number;
  /** CPU of the measured process (gw or the floor) per request, ms; user and system split. */
  cpuMsPerReq: number;
  userMsPerReq: number;
  sysMsPerReq: number;
  /** Mean of the runs' p50 and p99 latencies, ms. */
  p50: number;
  p99: number;
  /** Connection errors, timeouts and non-2xx answers, all runs. */
  errors: number;
}

/** Pools runs of one target (see `Pooled`); CPU is NaN for runs without a measured process. */
export function pool(runs: PhaseResult[]): Pooled {
  let requests = 0;
  let seconds = 0;
  let user = 0;
  let sys = 0;
  let errors = 0;
  for (const r of runs) {
    requests += r.load.requests;
    seconds += r.load.seconds;
    user += (r.gwUserMsPerReq ?? NaN) * r.load.requests;
    sys += (r.gwSysMsPerReq ?? NaN) * r.load.requests;
    errors += r.load.errors + r.load.non2xx;
  }
  const n = Math.max(1, requests);
  const mean = (f: (r: PhaseResult) => number) => runs.reduce((a, r) => a + f(r), 0) / runs.length;
  return {
    runs: runs.length,
    requests,
    rps: seconds > 0 ? requests / seconds : 0,
    cpuMsPerReq: (user + sys) / n,
    userMsPerReq: user / n,
    sysMsPerReq: sys / n,
    p50: mean((r) => r.load.p50),
    p99: mean((r) => r.load.p99),
    errors,
  };
}

/** Streams opened at once and read to their end. */
export interface OpenStreams {
  streams: number;
  /** From the first request to the last stream's end, ms. */
  wallMs: number;
  /** Per-stream time to end, ms. */
  endP50: number;
  endMax: number;
  /** `data:` frames per completed stream (mean). */
  frames: number;
  errors: number;
  firstError?: string;
  /** Peak RSS of the proxy in between (gw), sampled every 100 ms, MiB. */
  peakRssMiB?: number;
}

/** Every headline measurement (results.json `headline`). */
export interface HeadlineMeasurements {
  options: HeadlineOptions;
  /** c=50 non-streaming chat: the floor, gw without extensions, gw with five (unique prompts). */
  floor: Pooled;
  gw: Pooled;
  ext5: Pooled;
  /** Each cycle's own ratios (its two runs of each target pooled): gw / floor and five extensions / none, req/s. */
  cycleRatios?: { floor: number[]; ext5: number[] };
  /**
   * c=1 non-streaming chat: straight to the upstream, through the bare-proxy floor, and
   * through gw without extensions. The floor's own added latency is the reference for gw's:
   * whatever a node:http + undici hop costs on this machine, gw cannot undercut.
   */
  direct1: Pooled;
  floor1: Pooled;
  gw1: Pooled;
  /** gw RSS, MiB: at rest, then at the end of `rssSeconds` at c=50 (peak during it too). */
  rss: {
    restGw: number;
    restExt5: number;
    loadGw: number;
    loadGwPeak: number;
    loadExt5: number;
    loadExt5Peak: number;
    /** Load errors during the RSS runs. */
    errors: number;
  };
  /** The slow upstream's streams, all at once: straight and through a fresh gw. */
  streamsDirect: OpenStreams;
  streamsGw: OpenStreams;
}

/** One headline figure against its target. */
export interface HeadlineFigure {
  figure: string;
  value: number;
  unit: 'x' | 'ms' | 'MiB' | '';
  /** The target: `value <= limit` when `atMost`, else `value >= limit`. */
  limit: number;
  atMost: boolean;
  met: boolean;
  /** The numbers behind the value, for the table. */
  detail: string;
}

const f = (v: number, d = 2) => (Number.isFinite(v) ? v.toFixed(d) : '-');

/** The figures and their targets from the measurements (issue 14). */
export function headlineFigures(m: HeadlineMeasurements): HeadlineFigure[] {
  const out: HeadlineFigure[] = [];
  const add = (figure: string, value: number, unit: HeadlineFigure['unit'], limit: number, atMost: boolean, detail: string) =>
    out.push({ figure, value, unit, limit, atMost, met: Number.isFinite(value) && (atMost ? value <= limit : value >= limit), detail });
  const cpu = (p: Pooled) => `${f(p.rps, 0)} req/s, ${f(p.cpuMsPerReq, 3)} ms CPU/req`;
  /** A req/s ratio at c=50 (at least `limit`), both sides' CPU and each cycle's ratio in the detail. */
  const ratio = (figure: string, a: [string, Pooled], b: [string, Pooled], limit: number, cycles: number[] | undefined) =>
    add(
      figure,
      a[1].rps / b[1].rps,
      'x',
      limit,
      false,
      `${a[0]} ${cpu(a[1])}; ${b[0]} ${cpu(b[1])}${cycles && cycles.length > 1 ? `; per cycle ${cycles.map((x) => f(x)).join(' ')}` : ''}`,
    );
  ratio('gw / bare-proxy floor, req/s at c=50', ['gw', m.gw], ['floor', m.floor], 0.8, m.cycleRatios?.floor);
  ratio('five extensions / none, req/s at c=50', ['five', m.ext5], ['none', m.gw], 0.7, m.cycleRatios?.ext5);
  add(
    'added p50 at c=1 (gw - direct)',
    m.gw1.p50 - m.direct1.p50,
    'ms',
    0.2,
    true,
    `p50 ${f(m.gw1.p50, 3)} vs ${f(m.direct1.p50, 3)} ms; p99 ${f(m.gw1.p99, 3)} vs ${f(m.direct1.p99, 3)} ms (+${f(m.gw1.p99 - m.direct1.p99, 3)}); ` +
      `the floor adds ${f(m.floor1.p50 - m.direct1.p50, 3)} ms (p50 ${f(m.floor1.p50, 3)}): gw - floor ${f(m.gw1.p50 - m.floor1.p50, 3)} ms`,
  );
  const s = m.options.rssSeconds;
  add('RSS at rest, no extensions', m.rss.restGw, 'MiB', 100, true, `after ${m.options.restSeconds} s idle`);
  add('RSS at rest, five extensions', m.rss.restExt5, 'MiB', 100, true, `after ${m.options.restSeconds} s idle`);
  add(`RSS after ${s} s at c=50, no extensions`, m.rss.loadGw, 'MiB', 200, true, `peak ${f(m.rss.loadGwPeak, 1)} MiB`);
  add(`RSS after ${s} s at c=50, five extensions`, m.rss.loadExt5, 'MiB', 200, true, `peak ${f(m.rss.loadExt5Peak, 1)} MiB (unique prompts)`);
  const n = m.streamsGw.streams;
  add(`RSS peak, ${n} open streams`, m.streamsGw.peakRssMiB ?? NaN, 'MiB', 500, true, 'sampled every 100 ms');
  const st = (o: OpenStreams) => `${f(o.wallMs / 1000)} s (end p50 ${f(o.endP50 / 1000)} s)`;
  add(
    `${n} streams at once, wall time gw / direct`,
    m.streamsGw.wallMs / m.streamsDirect.wallMs,
    'x',
    1.5,
    true,
    `gw ${st(m.streamsGw)}; direct ${st(m.streamsDirect)}; ${m.options.slowChunks} writes ${m.options.slowGapMs} ms apart`,
  );
  const errors =
    m.streamsGw.errors +
    m.streamsDirect.errors +
    m.gw.errors +
    m.floor.errors +
    m.ext5.errors +
    m.gw1.errors +
    m.floor1.errors +
    m.direct1.errors +
    m.rss.errors;
  add(
    'errors, every run above',
    errors,
    '',
    0,
    true,
    `streams: gw ${m.streamsGw.errors}, direct ${m.streamsDirect.errors}${(m.streamsGw.firstError ?? m.streamsDirect.firstError) ? ` (first: ${(m.streamsGw.firstError ?? m.streamsDirect.firstError)!.slice(0, 80)})` : ''}`,
  );
  return out;
}

/** The headline table. */
export function formatHeadline(figures: HeadlineFigure[]): string {
  const value = (x: HeadlineFigure) =>
    x.unit === 'x' ? `${f(x.value)}x` : x.unit === 'ms' ? `${f(x.value, 3)} ms` : x.unit === 'MiB' ? `${f(x.value, 1)} MiB` : String(x.value);
  const target = (x: HeadlineFigure) => `${x.atMost ? '≤' : '≥'} ${x.unit === 'x' ? `${x.limit}x` : x.unit ? `${x.limit} ${x.unit}` : x.limit}`;
  const lines = figures.map((x) => `  ${x.met ? 'met ' : 'MISS'}  ${x.figure.padEnd(44)} ${value(x).padStart(11)}  ${target(x).padEnd(10)}  ${x.detail}`);
  return `headline (issue 14)\n  ${''.padEnd(4)}  ${'figure'.padEnd(44)} ${'value'.padStart(11)}  ${'target'.padEnd(10)}  detail\n${lines.join('\n')}\n`;
}

/** Connections opened per batch before the streams: well under the bench upstream's accept backlog (Node's default, 511; gw asks for 4096). */
const CONNECT_BATCH = 250;

/**
 * Opens `n` connections to `target`'s origin (one undici Client each, `CONNECT_BATCH` at a
 * time, each checked with `GET warmPath`), then sends the `n` stream requests at once, one per
 * connection, and reads every one to its end; each is bounded by `timeoutMs`. Wall time counts
 * from the requests, not the connects: `n` connects within a millisecond overflow the direct
 * upstream's backlog (Node's default, 511) and the kernel then resets some of them, which
 * measures the accept queue, not stream handling. `rssPid`: a process whose RSS peak to sample meanwhile.
 */
export async function openStreams(target: Target, warmPath: string, n: number, timeoutMs: number, rssPid?: number): Promise<OpenStreams> {
  const url = new URL(target.url);
  const clients = Array.from(
    { length: n },
    () =>
      new Client(url.origin, {
        pipelining: 1,
        connectTimeout: 30_000,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        keepAliveTimeout: 120_000,
        keepAliveMaxTimeout: 120_000,
      }),
  );
  const ends = new Samples();
  let frames = 0;
  let errors = 0;
  let firstError: string | undefined;
  const fail = (err: unknown) => {
    errors++;
    firstError ??= (err as Error).message;
  };
  let peak = rssPid ? treeRssMiB(rssPid) : NaN;
  let sampler: NodeJS.Timeout | undefined;
  let t0 = 0;
  const one = async (c: Client) => {
    try {
      const res = await c.request({
        path: url.pathname + url.search,
        method: 'POST',
        headers: target.headers,
        body: target.body,
        signal: AbortSignal.timeout(timeoutMs),
      });
      let text = '';
      for await (const buf of res.body) text += buf.toString();
      if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}: ${text.slice(0, 200)}`);
      if (!text.includes('data: [DONE]')) throw new Error('stream ended without [DONE]');
      ends.push(performance.now() - t0);
      frames += countFrames(text);
    } catch (err) {
      fail(err);
    }
  };
  let wallMs: number;
  try {
    const live: Client[] = [];
    for (let i = 0; i < n; i += CONNECT_BATCH) {
      await Promise.all(
        clients.slice(i, i + CONNECT_BATCH).map(async (c) => {
          try {
            const r = await c.request({ path: warmPath, method: 'GET', headers: target.headers, signal: AbortSignal.timeout(30_000) });
            await r.body.dump();
            if (r.statusCode !== 200) throw new Error(`GET ${warmPath}: HTTP ${r.statusCode}`);
            live.push(c);
          } catch (err) {
            fail(err);
          }
        }),
      );
    }
    if (rssPid) {
      peak = Math.max(peak, treeRssMiB(rssPid));
      sampler = setInterval(() => {
        peak = Math.max(peak, treeRssMiB(rssPid));
      }, 100);
    }
    t0 = performance.now();
    await Promise.all(live.map(one));
    wallMs = performance.now() - t0;
  } finally {
    clearInterval(sampler);
    await Promise.all(clients.map((c) => c.destroy()));
  }
  if (rssPid) peak = Math.max(peak, treeRssMiB(rssPid));
  const sorted = ends.sorted();
  return {
    streams: n,
    wallMs,
    endP50: summarize(ends).p50,
    endMax: sorted.length ? sorted[sorted.length - 1]! : NaN,
    frames: ends.length ? frames / ends.length : 0,
    errors,
    firstError,
    peakRssMiB: rssPid ? peak : undefined,
  };
}

/** Load at `connections` for `seconds` while sampling `pid`'s RSS every second: [at the end, peak], MiB. */
async function rssUnderLoad(target: Target, pid: number, connections: number, seconds: number): Promise<{ end: number; peak: number; errors: number }> {
  let peak = treeRssMiB(pid);
  const t = setInterval(() => {
    peak = Math.max(peak, treeRssMiB(pid));
  }, 1000);
  try {
    const r = await runLoad(target, connections, seconds);
    const end = treeRssMiB(pid);
    return { end, peak: Math.max(peak, end), errors: r.errors + r.non2xx };
  } finally {
    clearInterval(t);
  }
}

const note = (s: string) => process.stderr.write(`headline: ${s}\n`);

/** Measures every headline figure; starts and stops its own children. */
export async function measureHeadline(o: HeadlineOptions): Promise<HeadlineMeasurements> {
  const stops: Array<() => Promise<void>> = [];
  try {
    const up = await startUpstream();
    stops.push(() => up.child.stop());
    const floor = await startFloor(up.url);
    stops.push(() => floor.child.stop());
    const gw = await startGw(plain, up.url);
    stops.push(() => gw.stop());
    const gw5 = await startGw(ext5, up.url);
    stops.push(() => gw5.stop());
    note(`at rest ${o.restSeconds} s…`);
    await sleep(o.restSeconds * 1000);
    const restGw = treeRssMiB(gw.child.proc.pid!);
    const restExt5 = treeRssMiB(gw5.child.proc.pid!);

    const base = (u: Upstream, connections: number): PhaseOptions => ({
      connections,
      seconds: o.seconds,
      warmupSeconds: o.warmupSeconds,
      streams: 0,
      streamConcurrency: 1,
      upstreamPid: u.child.proc.pid!,
      upstreamCalls: u.calls,
    });
    const req = { path: chatPath, body: chat };
    const tGw = toTarget(gw.url, req, true);
    const tExt5 = toTarget(gw5.url, { ...req, unique: true }, true);
    const tFloor = toTarget(floor.url, req, false);
    const tDirect = toTarget(up.url, req, false);
    note(`warming each process: ${o.processWarmupSeconds} s at c=50…`);
    for (const t of [tFloor, tGw, tExt5]) await runLoad(t, 50, o.processWarmupSeconds);
    // ABBA order, pooled: a drift of the machine's other load hits every target alike
    note(`c=50: floor, gw, five extensions (ABCCBA × ${o.cycles})…`);
    const runs = { floor: [] as PhaseResult[], gw: [] as PhaseResult[], ext5: [] as PhaseResult[] };
    const c50 = base(up, 50);
    const order: Array<[keyof typeof runs, Target, number]> = [
      ['floor', tFloor, floor.child.proc.pid!],
      ['gw', tGw, gw.child.proc.pid!],
      ['ext5', tExt5, gw5.child.proc.pid!],
    ];
    const cycleRatios = { floor: [] as number[], ext5: [] as number[] };
    for (let c = 0; c < o.cycles; c++) {
      const cycle = { floor: [] as PhaseResult[], gw: [] as PhaseResult[], ext5: [] as PhaseResult[] };
      for (const [k, t, pid] of [...order, ...order.toReversed()]) {
        const r = await measurePhase(t, { ...c50, gwPid: pid });
        runs[k].push(r);
        cycle[k].push(r);
      }
      const rps = (k: keyof typeof cycle) => pool(cycle[k]).rps;
      cycleRatios.floor.push(rps('gw') / rps('floor'));
      cycleRatios.ext5.push(rps('ext5') / rps('gw'));
    }
    note('c=1: direct, floor, gw (ABCCBA)…');
    const lat = { direct: [] as PhaseResult[], floor: [] as PhaseResult[], gw: [] as PhaseResult[] };
    const c1 = base(up, 1);
    const order1: Array<[keyof typeof lat, Target, number | undefined]> = [
      ['direct', tDirect, undefined],
      ['floor', tFloor, floor.child.proc.pid!],
      ['gw', tGw, gw.child.proc.pid!],
    ];
    for (const [k, t, pid] of [...order1, ...order1.toReversed()]) lat[k].push(await measurePhase(t, { ...c1, gwPid: pid }));
    await floor.child.stop();

    note(`RSS: ${o.rssSeconds} s at c=50, no extensions…`);
    const lg = await rssUnderLoad(tGw, gw.child.proc.pid!, 50, o.rssSeconds);
    await gw.stop();
    note(`RSS: ${o.rssSeconds} s at c=50, five extensions…`);
    const l5 = await rssUnderLoad(tExt5, gw5.child.proc.pid!, 50, o.rssSeconds);
    await gw5.stop();
    await up.child.stop();

    const slow = await startUpstream({ BENCH_CHUNK_GAP_MS: String(o.slowGapMs), BENCH_STREAM_CHUNKS: String(o.slowChunks) }, 'slow upstream');
    stops.push(() => slow.child.stop());
    const sgw = await startGw(plain, slow.url);
    stops.push(() => sgw.stop());
    const streamMs = (o.slowChunks - 1) * o.slowGapMs;
    // a stream should take streamMs; anything past four times that plus connection setup is stuck
    const timeoutMs = 4 * streamMs + 30_000;
    const sreq = { path: chatPath, body: chatStream };
    note(`${o.openStreams} streams at once, direct…`);
    const streamsDirect = await openStreams(toTarget(slow.url, sreq, false), '/v1/models', o.openStreams, timeoutMs);
    note(`${o.openStreams} streams at once, through gw…`);
    const streamsGw = await openStreams(toTarget(sgw.url, sreq, true), '/health', o.openStreams, timeoutMs, sgw.child.proc.pid!);
    return {
      options: o,
      floor: pool(runs.floor),
      gw: pool(runs.gw),
      ext5: pool(runs.ext5),
      cycleRatios,
      direct1: pool(lat.direct),
      floor1: pool(lat.floor),
      gw1: pool(lat.gw),
      rss: { restGw, restExt5, loadGw: lg.end, loadGwPeak: lg.peak, loadExt5: l5.end, loadExt5Peak: l5.peak, errors: lg.errors + l5.errors },
      streamsDirect,
      streamsGw,
    };
  } finally {
    for (const stop of stops.reverse()) await stop();
  }
}
