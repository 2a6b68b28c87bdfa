/**
 * The headline's helpers (pooling runs, the figures against their targets, the slow
 * upstream's short stream), and the floor proxy streaming a short slow stream.
 * `npx ava --config bench/ava.config.js`.
 */
import test from 'ava';
import { formatHeadline, headlineFigures, openStreams, pool, type HeadlineMeasurements, type OpenStreams, type Pooled } from '../headline.ts';
import type { PhaseResult } from '../measure.ts';
import { toTarget } from '../options.ts';
import { buildPayloads, shortenOpenaiStream } from '../payloads.ts';
import { stopAll } from '../procs.ts';
import { chatPath, chatStream } from '../scenarios.ts';
import { startFloor, startUpstream } from '../setup.ts';

const phase = (requests: number, seconds: number, userMs: number, sysMs: number, p50: number): PhaseResult => ({
  load: { requests, seconds, rps: requests / seconds, p50, p99: p50 * 2, mean: p50, errors: 0, non2xx: 0 },
  gwUserMsPerReq: userMs,
  gwSysMsPerReq: sysMs,
  gwCpuMsPerReq: userMs + sysMs,
  upstreamCpuMsPerReq: 0,
  loadgenCpuMsPerReq: 0,
  upstreamCallsPerReq: 1,
});

test('pool: requests over seconds, CPU weighted by requests, mean p50', (t) => {
  const p = pool([phase(1000, 1, 0.1, 0.1, 1), phase(3000, 1, 0.2, 0.1, 3)]);
  t.is(p.requests, 4000);
  t.is(p.rps, 2000);
  t.is(Math.round(p.userMsPerReq * 1000), 175);
  t.is(Math.round(p.cpuMsPerReq * 1000), 275);
  t.is(p.p50, 2);
  t.true(Number.isNaN(pool([{ ...phase(10, 1, 0, 0, 1), gwUserMsPerReq: undefined }]).cpuMsPerReq));
});

const pooled = (rps: number, p50 = 1): Pooled => ({
  runs: 2,
  requests: rps,
  rps,
  cpuMsPerReq: 0.2,
  userMsPerReq: 0.15,
  sysMsPerReq: 0.05,
  p50,
  p99: 2,
  errors: 0,
});
const streams = (wallMs: number, errors = 0, peakRssMiB?: number): OpenStreams => ({
  streams: 5000,
  wallMs,
  endP50: wallMs,
  endMax: wallMs,
  frames: 9,
  errors,
  peakRssMiB,
});
const measurements = (): HeadlineMeasurements => ({
  options: {
    seconds: 4,
    warmupSeconds: 1,
    processWarmupSeconds: 15,
    cycles: 3,
    restSeconds: 5,
    rssSeconds: 60,
    openStreams: 5000,
    slowChunks: 8,
    slowGapMs: 1000,
  },
  floor: pooled(1000),
  gw: pooled(850, 0.3),
  ext5: pooled(500),
  direct1: pooled(5000, 0.15),
  floor1: pooled(4000, 0.2),
  gw1: pooled(3000, 0.3),
  rss: { restGw: 90, restExt5: 101, loadGw: 150, loadGwPeak: 160, loadExt5: 190, loadExt5Peak: 210, errors: 0 },
  streamsDirect: streams(7100),
  streamsGw: streams(7600, 0, 420),
});

test('headline figures: each value against its target, met or missed', (t) => {
  const figs = headlineFigures(measurements());
  const by = (prefix: string) => figs.find((x) => x.figure.startsWith(prefix))!;
  t.is(by('gw / bare-proxy').value, 0.85);
  t.true(by('gw / bare-proxy').met);
  t.is(by('five extensions').value, 500 / 850);
  t.false(by('five extensions').met);
  t.is(Math.round(by('added p50').value * 1000), 150);
  t.true(by('added p50').met);
  // the floor's own added latency is shown beside gw's: 0.2 - 0.15 ms, and gw 0.1 ms over it
  t.regex(by('added p50').detail, /the floor adds 0\.050 ms .*gw - floor 0\.100 ms/);
  t.true(by('RSS at rest, no').met);
  t.false(by('RSS at rest, five').met);
  t.true(by('RSS after 60 s at c=50, five').met);
  t.true(by('RSS peak, 5000').met);
  t.is(Math.round(by('5000 streams').value * 100), 107);
  t.true(by('5000 streams').met);
  t.true(by('errors').met);
  const m = measurements();
  m.streamsGw = streams(7600, 3);
  m.streamsGw.firstError = 'HTTP 502';
  const errs = headlineFigures(m).find((x) => x.figure.startsWith('errors'))!;
  t.false(errs.met);
  t.regex(errs.detail, /HTTP 502/);
  // a figure that could not be measured is never met
  m.streamsGw.peakRssMiB = undefined;
  t.false(headlineFigures(m).find((x) => x.figure.startsWith('RSS peak'))!.met);
});

test('formatHeadline prints one met/MISS row per figure with value and target', (t) => {
  const out = formatHeadline(headlineFigures(measurements()));
  t.regex(out, /^headline \(issue 14\)/);
  t.regex(out, /met +gw \/ bare-proxy floor.*0\.85x {2}≥ 0\.8x/);
  t.regex(out, /MISS {2}RSS at rest, five extensions +101\.0 MiB {2}≤ 100 MiB/);
  t.regex(out, /added p50 at c=1 .* 0\.150 ms {2}≤ 0\.2 ms/);
  t.is(out.trim().split('\n').length, 2 + headlineFigures(measurements()).length);
});

test('shortenOpenaiStream keeps the role, the first text chunks and one closing write', (t) => {
  const p = buildPayloads();
  for (const [events, frames] of [
    [p.openaiSse, 9],
    [p.openaiSseWithUsage, 10],
  ] as const) {
    const s = shortenOpenaiStream(events, 8);
    t.is(s.length, 8);
    t.is(s[0], events[0]);
    t.true(s[7]!.includes('"finish_reason":"stop"') && s[7]!.endsWith('data: [DONE]\n\n'));
    t.is(s.join('').split('data: ').length - 1, frames);
  }
  t.throws(() => shortenOpenaiStream(p.openaiSse, 1));
  t.throws(() => shortenOpenaiStream(p.openaiSse, 21));
});

test('the floor proxy streams a slow upstream through; openStreams reads every stream to its end', async (t) => {
  t.teardown(stopAll);
  const up = await startUpstream({ BENCH_CHUNK_GAP_MS: '20', BENCH_STREAM_CHUNKS: '3' });
  const floor = await startFloor(up.url);
  const r = await openStreams(toTarget(floor.url, { path: chatPath, body: chatStream }, false), '/v1/models', 50, 10_000, floor.child.proc.pid!);
  t.is(r.errors, 0, r.firstError);
  t.is(r.frames, 4);
  t.true(r.wallMs >= 40);
  t.true(r.peakRssMiB! > 10);
  t.is(await up.calls(), 50);
});

test('headline figures: the ratio of each cycle is shown beside the pooled ratio', (t) => {
  const figs = headlineFigures({ ...measurements(), cycleRatios: { floor: [0.8, 0.91, 0.85], ext5: [0.6, 0.55, 0.62] } });
  t.regex(figs.find((x) => x.figure.startsWith('gw / bare-proxy floor'))!.detail, /; per cycle 0\.80 0\.91 0\.85$/);
  t.regex(figs.find((x) => x.figure.startsWith('five extensions / none'))!.detail, /; per cycle 0\.60 0\.55 0\.62$/);
  t.notRegex(headlineFigures(measurements()).find((x) => x.figure.startsWith('gw / bare-proxy floor'))!.detail, /per cycle/);
});
