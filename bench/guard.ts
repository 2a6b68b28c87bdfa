/**
 * `npm run bench:guard -- <commit or checkout>`: the perf guard. This tree against an earlier
 * commit of gw (a built checkout, or a commit: it is checked out and built under the system's
 * temp folder, `gw-guard-<commit>`, once), scenario by scenario: both gws started, warmed
 * (`GUARD_WARMUP_SECONDS`, 10, each, per scenario), then loaded in `GUARD_CYCLES` (4) ABBA
 * cycles (old, new, new, old) of `GUARD_SECONDS` (3) each; every gw pinned to core 1, the
 * upstream and the load generator to core 0 (`taskset`, when on PATH). Per scenario: req/s
 * and gw CPU µs per request of each side (pooled), new/old ratios, pooled and per cycle.
 * A scenario the old tree cannot run (a config it does not know) is reported, not fatal.
 * Scenarios (`GUARD_ONLY` picks some): json-c50, stream-c50, json-c1 (p50 too), ext5-json-c50.
 * `GUARD_NEW=<commit or checkout>` puts another tree on the new side (one change's own gain:
 * its commit against its parent).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runLoad, type LoadResult } from './load.ts';
import { envNumber, toTarget } from './options.ts';
import { cpuTimes, pin, stopAll } from './procs.ts';
import { type BenchRequest, chat, chatPath, chatStream, ext5, type GwSetup, plain } from './scenarios.ts';
import { type Gw, ROOT, startGw, startUpstream } from './setup.ts';
import { percentile } from './stats.ts';

const CYCLES = Math.max(1, Math.round(envNumber('GUARD_CYCLES', 4)));
const SECONDS = envNumber('GUARD_SECONDS', 3);
const WARMUP = envNumber('GUARD_WARMUP_SECONDS', 10);

interface GuardScenario {
  name: string;
  setup: GwSetup;
  request: BenchRequest;
  connections: number;
}

const SCENARIOS: GuardScenario[] = [
  { name: 'json-c50', setup: plain, request: { path: chatPath, body: chat }, connections: 50 },
  { name: 'stream-c50', setup: plain, request: { path: chatPath, body: chatStream }, connections: 50 },
  { name: 'json-c1', setup: plain, request: { path: chatPath, body: chat }, connections: 1 },
  { name: 'ext5-json-c50', setup: ext5, request: { path: chatPath, body: chat, unique: true }, connections: 50 },
];

/** A built checkout of `ref`: the directory itself when it is one, else the commit checked out and built once. */
function checkout(ref: string): string {
  const dir = resolve(ref);
  if (existsSync(join(dir, 'cli/gw.js'))) {
    if (!existsSync(join(dir, 'dist'))) throw new Error(`bench/guard.ts: ${dir} is not built (npm run build there)`);
    return dir;
  }
  const git = (...args: string[]) => execFileSync('git', ['-C', ROOT, ...args], { encoding: 'utf8' }).trim();
  const commit = git('rev-parse', '--verify', `${ref}^{commit}`);
  const out = join(tmpdir(), `gw-guard-${commit.slice(0, 12)}`);
  if (existsSync(join(out, 'dist/cli'))) return out;
  process.stderr.write(`guard: checking out ${commit.slice(0, 12)} into ${out} and building it…\n`);
  execFileSync('rm', ['-rf', out]);
  execFileSync('mkdir', ['-p', out]);
  execFileSync('sh', ['-c', `git -C "${ROOT}" archive ${commit} | tar -x -C "${out}"`]);
  // its own dependencies when its lock differs from this tree's; else this tree's, hard-linked
  const sameLock = git('rev-parse', `${commit}:package-lock.json`) === git('hash-object', join(ROOT, 'package-lock.json'));
  if (sameLock) execFileSync('cp', ['-al', join(ROOT, 'node_modules'), join(out, 'node_modules')]);
  else execFileSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: out, stdio: 'ignore' });
  execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: out, stdio: 'ignore' });
  return out;
}

interface Side {
  label: string;
  gw: Gw;
  runs: Array<{ load: LoadResult; cpuUs: number }>;
}

/** One load run on `side`: its load result and gw's CPU µs per request. */
async function measure(side: Side, s: GuardScenario): Promise<void> {
  const pid = side.gw.child.proc.pid!;
  const a = cpuTimes(pid);
  const load = await runLoad(toTarget(side.gw.url, s.request, true), s.connections, SECONDS);
  const b = cpuTimes(pid);
  if (load.errors + load.non2xx > 0) throw new Error(`${side.label}: ${load.errors} errors, ${load.non2xx} non-2xx in ${s.name}`);
  side.runs.push({ load, cpuUs: ((b.userMs + b.sysMs - a.userMs - a.sysMs) * 1000) / Math.max(1, load.requests) });
}

const pooledRps = (side: Side) => side.runs.reduce((n, r) => n + r.load.requests, 0) / side.runs.reduce((n, r) => n + r.load.seconds, 0);
const pooledCpu = (side: Side) => side.runs.reduce((n, r) => n + r.cpuUs * r.load.requests, 0) / side.runs.reduce((n, r) => n + r.load.requests, 0);
const fmt = (x: number, d = 0) => x.toFixed(d);

const ref = process.argv[2];
if (!ref) throw new Error('bench/guard.ts: give the commit (or a built checkout) to compare with, e.g. bench/guard.ts main');
const other = checkout(ref);
const mine = process.env.GUARD_NEW ? checkout(process.env.GUARD_NEW) : ROOT;
const only = process.env.GUARD_ONLY?.split(',');
const version = async (root: string) => (JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { version: string }).version;
const lines = [`perf guard: ${mine} (${await version(mine)}) vs ${ref} (${other}); ${CYCLES} ABBA cycles of ${SECONDS} s after ${WARMUP} s warm-up`];
const up = await startUpstream();
try {
  const pinned = pin(process.pid, 0) && pin(up.child.proc.pid!, 0);
  for (const s of SCENARIOS) {
    if (only && !only.includes(s.name)) continue;
    let sides: [Side, Side];
    try {
      sides = [
        { label: 'old', gw: await startGw(s.setup, up.url, [], undefined, other), runs: [] },
        { label: 'new', gw: await startGw(s.setup, up.url, [], undefined, mine), runs: [] },
      ];
    } catch (err) {
      lines.push('', `${s.name}: not run (${(err as Error).message.split('\n')[0]})`);
      await stopAll();
      continue;
    }
    try {
      if (pinned) for (const side of sides) pin(side.gw.child.proc.pid!, 1);
      process.stderr.write(`guard: ${s.name}: warming…\n`);
      for (const side of sides) await runLoad(toTarget(side.gw.url, s.request, true), s.connections, WARMUP);
      for (let c = 0; c < CYCLES; c++) for (const i of [0, 1, 1, 0]) await measure(sides[i]!, s);
      const [old, now] = sides;
      const cycleRatios = (f: (r: Side['runs'][number]) => number) =>
        Array.from({ length: CYCLES }, (_, c) => (f(now.runs[2 * c]!) + f(now.runs[2 * c + 1]!)) / (f(old.runs[2 * c]!) + f(old.runs[2 * c + 1]!)));
      const rpsCycles = cycleRatios((r) => r.load.rps);
      const cpuCycles = cycleRatios((r) => r.cpuUs);
      const median = (xs: number[]) =>
        percentile(
          xs.toSorted((x, y) => x - y),
          50,
        );
      lines.push(
        '',
        `${s.name} (${s.connections} connection${s.connections === 1 ? '' : 's'})`,
        `  req/s       old ${fmt(pooledRps(old))}  new ${fmt(pooledRps(now))}  new/old ${fmt(pooledRps(now) / pooledRps(old), 3)} (median cycle ${fmt(median(rpsCycles), 3)}; cycles ${rpsCycles.map((x) => fmt(x, 2)).join(' ')})`,
        `  CPU µs/req  old ${fmt(pooledCpu(old))}  new ${fmt(pooledCpu(now))}  new/old ${fmt(pooledCpu(now) / pooledCpu(old), 3)} (median cycle ${fmt(median(cpuCycles), 3)}; cycles ${cpuCycles.map((x) => fmt(x, 2)).join(' ')})`,
      );
      if (s.connections === 1) {
        const p50 = (side: Side) => median(side.runs.map((r) => r.load.p50));
        lines.push(`  p50 ms      old ${fmt(p50(old), 3)}  new ${fmt(p50(now), 3)}  new − old ${fmt(p50(now) - p50(old), 3)}`);
      }
    } finally {
      for (const side of sides) await side.gw.stop();
    }
  }
} finally {
  await up.child.stop();
  await stopAll();
}
process.stdout.write(`${lines.join('\n')}\n`);
