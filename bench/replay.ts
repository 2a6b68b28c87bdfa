/**
 * The replay kind's cost per request against the `mock` kind's (issue 42's aim: replay adds no
 * more than mock), and against the live path it stands in for. Three gw processes: one serving
 * `bench-model` with `kind = "mock"` (delay 0), one with `kind = "replay"` from a cassette
 * recorded first through gw's recorder against the bench upstream (a chat answer and an 8-chunk
 * stream, about the size of mock's answer: 5 words, 8 chunks), and one with the openai kind
 * calling that upstream over HTTP. Each warmed, then measured in mirrored order (mock, replay,
 * live, live, replay, mock per cycle — ABBA for any two of them): gw CPU per request and req/s,
 * JSON and streams at 50 connections and JSON at 1, every cycle reported. A fourth process, the
 * live one with `[extensions.recorder]`, shows what recording adds to a request, and an
 * in-process loop times the recorder's write of one line.
 *
 *   npm run build && npx node --conditions=gw-source bench/replay.ts
 *
 * Knobs: BENCH_REPLAY_CYCLES (3), BENCH_REPLAY_WARMUP_SECONDS (6), BENCH_SECONDS (4).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pool } from './headline.ts';
import { runLoad } from './load.ts';
import { measurePhase, type PhaseResult } from './measure.ts';
import { envNumber, toTarget } from './options.ts';
import { stopAll } from './procs.ts';
import { chat, chatPath, chatStream, type GwSetup } from './scenarios.ts';
import { startGw, startUpstream } from './setup.ts';
import { CassetteWriter } from '../protocols/cassette/writer.ts';

const note = (s: string) => process.stderr.write(`replay bench: ${s}\n`);

const mock: GwSetup = { id: 'mock', toml: () => '[providers.mock]\nkind = "mock"\nmodels = ["bench-model"]\ndelay_ms = 0\n' };
const replayOf = (cassette: string): GwSetup => ({ id: 'replay', toml: () => `[providers.upstream]\nkind = "replay"\ncassette = "${cassette}"\n` });

/** Records the bench's chat request and its stream into `cassette`, through gw's recorder, against the bench upstream. */
async function record(cassette: string): Promise<void> {
  const up = await startUpstream({ BENCH_STREAM_CHUNKS: '8' }, 'upstream (recording)');
  const recorder: GwSetup = {
    id: 'recorder',
    toml: (u) =>
      `[providers.upstream]\napi_key = "sk-bench-upstream"\nbase_url = "${u}/v1"\nmodels = ["bench-model"]\n\n[extensions.recorder]\npath = "${cassette}"\n`,
  };
  const gw = await startGw(recorder, up.url);
  try {
    for (const body of [chat, chatStream]) {
      const t = toTarget(gw.url, { path: chatPath, body }, true);
      const res = await fetch(t.url, { method: 'POST', headers: t.headers, body: t.body });
      if (res.status !== 200) throw new Error(`recording: HTTP ${res.status} ${await res.text()}`);
      await res.text();
    }
  } finally {
    await gw.stop();
    await up.child.stop();
  }
}

const workloads: Array<[string, typeof chat, number]> = [
  ['JSON chat, 50 connections', chat, 50],
  ['8-chunk stream, 50 connections', chatStream, 50],
  ['JSON chat, 1 connection', chat, 1],
];

/** The bench's usual single provider over HTTP to the bench upstream (no extensions): the live path replay stands in for. */
const live: GwSetup = {
  id: 'live',
  toml: (u) => `[providers.upstream]\napi_key = "sk-bench-upstream"\nbase_url = "${u}/v1"\nmodels = ["bench-model"]\n`,
};
/** The live path while recording: what the recorder adds to a request. */
const recordingTo = (cassette: string): GwSetup => ({ id: 'recording', toml: (u) => `${live.toml(u)}\n[extensions.recorder]\npath = "${cassette}"\n` });

/** The recorder's write of one line (direct: one write(2) to the page cache), µs, over `n` lines of `bytes`. */
async function appendMicro(file: string, n: number, bytes: number): Promise<number> {
  const writer = await CassetteWriter.open(file);
  const line = JSON.stringify({ pad: 'x'.repeat(bytes - 10) });
  for (let i = 0; i < 2000; i++) writer.append(line);
  const t0 = process.cpuUsage();
  for (let i = 0; i < n; i++) writer.append(line);
  const used = process.cpuUsage(t0);
  await writer.close();
  return (used.user + used.system) / n;
}

type Side = 'mock' | 'replay' | 'live' | 'recording';

/** One line of the table from each side's µs per request and req/s. */
function row(label: string, us: (side: Side) => number, rps: (side: Side) => number): string {
  const f = (n: number, w: number) => n.toFixed(0).padStart(w);
  const sides: Side[] = ['mock', 'replay', 'live', 'recording'];
  return `${label.padEnd(7)}${f(us('mock'), 7)}${f(us('replay'), 8)}${f(us('live'), 7)}${f(us('recording'), 7)}${f(us('replay') - us('mock'), 13)}${f(us('replay') - us('live'), 13)}${f(us('recording') - us('live'), 10)}${sides
    .map((side) => rps(side).toFixed(0))
    .join('/')
    .padStart(30)}`;
}

const dir = await mkdtemp(join(tmpdir(), 'gw-bench-replay-'));
try {
  const cassette = join(dir, 'bench.jsonl');
  await record(cassette);
  const cycles = Math.max(1, Math.round(envNumber('BENCH_REPLAY_CYCLES', 3)));
  const warm = envNumber('BENCH_REPLAY_WARMUP_SECONDS', 6);
  const up = await startUpstream({ BENCH_STREAM_CHUNKS: '8' });
  const gws = {
    mock: await startGw(mock, up.url),
    replay: await startGw(replayOf(cassette), up.url),
    live: await startGw(live, up.url),
    recording: await startGw(recordingTo(join(dir, 'recording.jsonl')), up.url),
  };
  const seconds = envNumber('BENCH_SECONDS', 4);
  const phase = (connections: number, pid: number) => ({
    connections,
    seconds,
    warmupSeconds: 1,
    streams: 0,
    streamConcurrency: 1,
    gwPid: pid,
    upstreamPid: up.child.proc.pid!,
    upstreamCalls: up.calls,
  });
  note(`warming each process: ${warm} s…`);
  for (const [, body, c] of workloads)
    for (const g of Object.values(gws)) await runLoad(toTarget(g.url, { path: chatPath, body }, true), c, warm / workloads.length);
  const lines = [
    'replay kind vs mock kind, and the live path (the openai kind over HTTP to the bench upstream) without and with the recorder:',
    "gw CPU per request (µs); each cycle mock, replay, live, recording, recording, live, replay, mock; each side's two runs' mean",
  ];
  const sides: Side[] = ['mock', 'replay', 'live', 'recording'];
  for (const [what, body, c] of workloads) {
    note(`${what}: ${cycles} cycles…`);
    lines.push(`\n${what}`);
    lines.push(
      `${'cycle'.padEnd(7)}${'mock'.padStart(7)}${'replay'.padStart(8)}${'live'.padStart(7)}${'rec'.padStart(7)}${'replay−mock'.padStart(13)}${'replay−live'.padStart(13)}${'rec−live'.padStart(10)}${'req/s mock/replay/live/rec'.padStart(30)}`,
    );
    const all: Record<Side, PhaseResult[]> = { mock: [], replay: [], live: [], recording: [] };
    for (let i = 0; i < cycles; i++) {
      const runs: Record<Side, PhaseResult[]> = { mock: [], replay: [], live: [], recording: [] };
      for (const side of [...sides, ...sides.toReversed()]) {
        const g = gws[side];
        const r = await measurePhase(toTarget(g.url, { path: chatPath, body }, true), phase(c, g.child.proc.pid!));
        runs[side].push(r);
        all[side].push(r);
      }
      const us = (side: Side) => runs[side].reduce((a, r) => a + (r.gwCpuMsPerReq ?? Number.NaN) * 1000, 0) / runs[side].length;
      const rps = (side: Side) => runs[side].reduce((a, r) => a + r.load.requests / r.load.seconds, 0) / runs[side].length;
      lines.push(row(String(i + 1), us, rps));
    }
    const p = { mock: pool(all.mock), replay: pool(all.replay), live: pool(all.live), recording: pool(all.recording) };
    lines.push(
      `${row(
        'pooled',
        (side) => p[side].cpuMsPerReq * 1000,
        (side) => p[side].rps,
      )}   errors ${sides.map((side) => p[side].errors).join('/')}`,
    );
  }
  const appendUs = await appendMicro(join(dir, 'append.jsonl'), 20_000, 1536);
  lines.push(`\nthe recorder's write of one 1.5 KiB line (one write(2) to the page cache, in process): ${appendUs.toFixed(1)} µs CPU`);
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  await stopAll();
  await rm(dir, { recursive: true, force: true });
}
