/**
 * `npx node --conditions=gw-source bench/profile-diff.ts [trees <other checkout>]` (after `npm
 * run build`): where one gw setup spends more CPU than another, function by function. Two gw
 * processes, untraced and with `[extensions.otel]` (BENCH_OTEL_SAMPLING, BENCH_OTEL_TOML as in
 * `--only otel`) — with `trees`, the other checkout's gw (off) and this tree's (on), both
 * without extensions — each
 * under `node --cpu-prof`, warmed, then loaded with the JSON chat at 50 connections in ABBA
 * windows (off, on, on, off per cycle). Each profile is summarised over its own measured
 * windows only (cpuprofile-top.ts), in µs of main-thread self time per request, and the
 * functions are listed by the difference, largest first, then the most negative.
 *
 * The profiler samples the main thread's wall time while it is busy, so V8's collector and
 * compiler threads are not in it (bench/slices.ts counts them); a difference under ~0.2 µs a
 * function is within what two runs of one setup differ by here.
 * Knobs: DIFF_CYCLES (2), DIFF_SECONDS (5 per window), DIFF_WARMUP_SECONDS (10), DIFF_TOP (40).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CpuProfile, readProfileIn, summarizeProfile, windowOf } from './cpuprofile-top.ts';
import { runLoad } from './load.ts';
import { envNumber, toTarget } from './options.ts';
import { stopAll } from './procs.ts';
import { chat, chatPath, otelOn, plain } from './scenarios.ts';
import { startGw, startUpstream } from './setup.ts';

const CYCLES = Math.max(1, Math.round(envNumber('DIFF_CYCLES', 2)));
const SECONDS = envNumber('DIFF_SECONDS', 5);
const WARMUP = envNumber('DIFF_WARMUP_SECONDS', 10);
const TOP = Math.max(1, Math.round(envNumber('DIFF_TOP', 40)));
const CONNECTIONS = 50;
/** `trees <checkout>`: the other checkout against this tree, both plain. */
const OTHER = process.argv[2] === 'trees' ? process.argv[3] : undefined;
if (process.argv[2] === 'trees' && !OTHER) throw new Error('bench/profile-diff.ts trees: give the other checkout (built, with its node_modules)');

/** Self time per function (µs per request) over the windows, plus busy and GC totals. */
interface Side {
  requests: number;
  rps: number[];
  windows: Array<[bigint, bigint]>;
  perFunction: Map<string, number>;
  busyUs: number;
  gcUs: number;
}

/** Sums `profile`'s summaries over `side.windows` into `side` (ms of self time, made µs per request by the caller). */
function summarise(profile: CpuProfile, side: Side): void {
  for (const [t0, t1] of side.windows) {
    const s = summarizeProfile(profile, windowOf(profile, t0, t1));
    side.busyUs += s.busyMs * 1000;
    side.gcUs += s.gcMs * 1000;
    for (const f of s.functions) {
      // one function has one key in both trees: the checkout's own path dropped
      const k = `${f.fn} — ${(f.where || f.area).replace(/^.*\/dist\//, '')}`;
      side.perFunction.set(k, (side.perFunction.get(k) ?? 0) + f.selfMs * 1000);
    }
  }
}

const dirs = [await mkdtemp(join(tmpdir(), 'gw-diff-off-')), await mkdtemp(join(tmpdir(), 'gw-diff-on-'))];
try {
  const up = await startUpstream();
  const gws = [
    await startGw(plain, up.url, ['--cpu-prof', `--cpu-prof-dir=${dirs[0]}`], undefined, OTHER),
    await startGw(OTHER ? plain : otelOn, up.url, ['--cpu-prof', `--cpu-prof-dir=${dirs[1]}`]),
  ];
  const targets = gws.map((g) => toTarget(g.url, { path: chatPath, body: chat }, true));
  const sides: Side[] = gws.map(() => ({ requests: 0, rps: [], windows: [], perFunction: new Map(), busyUs: 0, gcUs: 0 }));
  process.stderr.write(`profile-diff: warming each gw ${WARMUP} s…\n`);
  for (const t of targets) await runLoad(t, CONNECTIONS, WARMUP);
  for (let c = 0; c < CYCLES; c++)
    for (const i of [0, 1, 1, 0]) {
      const t0 = process.hrtime.bigint();
      const r = await runLoad(targets[i]!, CONNECTIONS, SECONDS);
      sides[i]!.windows.push([t0, process.hrtime.bigint()]);
      sides[i]!.requests += r.requests;
      sides[i]!.rps.push(Math.round(r.rps));
    }
  // the profiles are written as the processes exit
  for (const g of gws) await g.stop();
  for (let i = 0; i < 2; i++) summarise((await readProfileIn(dirs[i]!)).profile, sides[i]!);

  const [off, on] = sides as [Side, Side];
  const per = (us: number, s: Side) => us / s.requests;
  const sampling = process.env.BENCH_OTEL_SAMPLING ?? '1.0';
  const compared = OTHER
    ? `${OTHER} (off) vs this tree (on), no extensions`
    : `untraced gw vs otel (sampling ${sampling}${process.env.BENCH_OTEL_TOML ? `, ${process.env.BENCH_OTEL_TOML}` : ''})`;
  const lines = [
    `profile-diff: ${compared}, JSON chat, ${CONNECTIONS} connections, ABBA × ${CYCLES}, ${SECONDS} s windows`,
    `req/s off ${off.rps.join(', ')}; on ${on.rps.join(', ')}`,
    `main thread busy: off ${per(off.busyUs, off).toFixed(1)} µs/request (GC ${per(off.gcUs, off).toFixed(1)}), on ${per(on.busyUs, on).toFixed(1)} (GC ${per(on.gcUs, on).toFixed(1)}): +${(per(on.busyUs, on) - per(off.busyUs, off)).toFixed(1)} µs`,
    '',
    '   +µs/req     off      on  function — where',
  ];
  const rows = [...new Set([...off.perFunction.keys(), ...on.perFunction.keys()])].map((k) => {
    const a = per(off.perFunction.get(k) ?? 0, off);
    const b = per(on.perFunction.get(k) ?? 0, on);
    return { k, a, b, d: b - a };
  });
  rows.sort((x, y) => y.d - x.d);
  const row = (r: (typeof rows)[number]) => `${r.d.toFixed(2).padStart(10)}${r.a.toFixed(2).padStart(8)}${r.b.toFixed(2).padStart(8)}  ${r.k}`;
  lines.push(...rows.slice(0, TOP).map(row), '', 'most negative', ...rows.slice(-8).map(row));
  for (const [name, side] of [
    ['off', 'a'],
    ['on', 'b'],
  ] as const) {
    const top = rows.toSorted((x, y) => y[side] - x[side]).slice(0, 15);
    lines.push('', `top 15 by self time, ${name} (µs/req)`, ...top.map((r) => `${r[side].toFixed(2).padStart(10)}  ${r.k}`));
  }
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  await stopAll();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
}
