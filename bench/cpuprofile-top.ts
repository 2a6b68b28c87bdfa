/**
 * Summarises a V8 `.cpuprofile` (from `node --cpu-prof`): self and total time per function
 * (name + file + line), and self time per area (gw's own folders, each npm package,
 * node internals). Run directly: `node bench/cpuprofile-top.ts <file.cpuprofile> [n]`.
 * @see https://chromedevtools.github.io/devtools-protocol/tot/Profiler/#type-Profile
 */
import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

/** The parts of a `.cpuprofile` this reads. */
export interface CpuProfile {
  nodes: ProfileNode[];
  /** Node id sampled, one per tick. */
  samples: number[];
  /** µs since the previous sample, one per sample. */
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** One function's share of the profile. */
export interface FunctionCost {
  fn: string;
  /** Shortened file:line (repo-relative, `node_modules/` dropped). */
  where: string;
  area: string;
  selfMs: number;
  totalMs: number;
  selfPct: number;
}

export interface ProfileSummary {
  /** Sampled ms, idle excluded. */
  busyMs: number;
  idleMs: number;
  gcMs: number;
  functions: FunctionCost[];
  areas: Array<{ area: string; selfMs: number; selfPct: number }>;
}

const SPECIAL = new Set(['(idle)', '(program)', '(garbage collector)', '(root)']);

/** The area a script belongs to: `gw:<top folder>`, `npm:<package>`, `node:<internal>` or the V8 bucket. */
export function areaOf(url: string, fn: string): string {
  if (!url) return SPECIAL.has(fn) ? fn : '(native)';
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 14).split('/');
    return `npm:${rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]}`;
  }
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/').slice(0, 2).join('/')}`;
  const m = /\/(core|lib|server|plugins|protocols|sdk|cli|bench)\/(?:([^/]+)\/)?/.exec(url);
  if (m) return m[2] && !m[2].includes('.') ? `gw:${m[1]}/${m[2]}` : `gw:${m[1]}`;
  return url;
}

function shortWhere(url: string, line: number): string {
  if (!url) return '';
  let u = url.replace(/^file:\/\//, '');
  const nm = u.lastIndexOf('/node_modules/');
  if (nm >= 0) u = u.slice(nm + 14);
  else {
    const m = /\/(core|plugins|protocols|sdk|cli|bench|test)\//.exec(u);
    if (m) u = u.slice(m.index + 1);
  }
  return `${u}:${line + 1}`;
}

/**
 * The profile a gw run with `--cpu-prof-dir=dir` wrote as it exited, and its file.
 * @throws when the directory holds none.
 */
export async function readProfileIn(dir: string): Promise<{ file: string; profile: CpuProfile }> {
  const name = (await readdir(dir)).find((f) => f.endsWith('.cpuprofile'));
  if (!name) throw new Error(`gw wrote no .cpuprofile into ${dir}`);
  const file = join(dir, name);
  return { file, profile: JSON.parse(await readFile(file, 'utf8')) as CpuProfile };
}

/**
 * The window of `p` between two `process.hrtime.bigint()` readings, in ms after the profile's
 * start (summarizeProfile's window): V8 stamps the profile in µs of the same monotonic clock
 * (CLOCK_MONOTONIC on Linux).
 */
export function windowOf(p: CpuProfile, t0: bigint, t1: bigint): { fromMs: number; toMs: number } {
  const ms = (t: bigint) => (Number(t / 1000n) - p.startTime) / 1000;
  return { fromMs: ms(t0), toMs: ms(t1) };
}

/**
 * Aggregates a profile by function (name + url + line) and by area, over the samples
 * between `fromMs` and `toMs` after the profile's start (default: all).
 */
export function summarizeProfile(p: CpuProfile, window: { fromMs?: number; toMs?: number } = {}): ProfileSummary {
  const from = window.fromMs ?? -Infinity;
  const to = window.toMs ?? Infinity;
  let at = 0;
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const n of p.nodes) {
    byId.set(n.id, n);
    for (const c of n.children ?? []) parent.set(c, n.id);
  }
  const keyOf = (n: ProfileNode) => `${n.callFrame.functionName || '(anonymous)'}\u0000${n.callFrame.url}\u0000${n.callFrame.lineNumber}`;
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  const frames = new Map<string, CallFrame>();
  let idle = 0;
  let gc = 0;
  let busy = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const dt = (p.timeDeltas[i] ?? 0) / 1000;
    at += dt;
    if (at < from || at > to) continue;
    const leaf = byId.get(p.samples[i]!);
    if (!leaf) continue;
    const name = leaf.callFrame.functionName;
    if (name === '(idle)') {
      idle += dt;
      continue;
    }
    if (name === '(garbage collector)') gc += dt;
    busy += dt;
    const k = keyOf(leaf);
    self.set(k, (self.get(k) ?? 0) + dt);
    frames.set(k, leaf.callFrame);
    // total: each function once per sample, however deep it recursed
    const seen = new Set<string>();
    for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) {
      const n = byId.get(id)!;
      const kk = keyOf(n);
      if (seen.has(kk)) continue;
      seen.add(kk);
      frames.set(kk, n.callFrame);
      total.set(kk, (total.get(kk) ?? 0) + dt);
    }
  }
  const functions: FunctionCost[] = [...total.keys()]
    .map((k) => {
      const cf = frames.get(k)!;
      const fn = cf.functionName || '(anonymous)';
      const selfMs = self.get(k) ?? 0;
      return {
        fn,
        where: shortWhere(cf.url, cf.lineNumber),
        area: areaOf(cf.url, fn),
        selfMs,
        totalMs: total.get(k) ?? 0,
        selfPct: busy ? (100 * selfMs) / busy : 0,
      };
    })
    .filter((f) => f.fn !== '(root)');
  functions.sort((a, b) => b.selfMs - a.selfMs);
  const areaMap = new Map<string, number>();
  for (const f of functions) areaMap.set(f.area, (areaMap.get(f.area) ?? 0) + f.selfMs);
  const areas = [...areaMap].map(([area, selfMs]) => ({ area, selfMs, selfPct: busy ? (100 * selfMs) / busy : 0 })).sort((a, b) => b.selfMs - a.selfMs);
  return { busyMs: busy, idleMs: idle, gcMs: gc, functions, areas };
}

/** The readable summary: top `n` functions by self time, then areas. `requests` adds µs per request. */
export function formatSummary(s: ProfileSummary, n = 15, requests?: number): string {
  const perReq = (ms: number) => (requests ? `${((ms * 1000) / requests).toFixed(1).padStart(7)} µs/req` : '');
  const lines = [
    `busy ${s.busyMs.toFixed(0)} ms (GC ${s.gcMs.toFixed(0)} ms), idle ${s.idleMs.toFixed(0)} ms${requests ? `, ${requests} requests: ${((s.busyMs * 1000) / requests).toFixed(1)} µs CPU sampled per request` : ''}`,
    '',
    `top ${n} functions by self time`,
    '   self%   self ms  total ms          function — where',
  ];
  for (const f of s.functions.slice(0, n)) {
    lines.push(
      `  ${f.selfPct.toFixed(1).padStart(5)}  ${f.selfMs.toFixed(0).padStart(8)}  ${f.totalMs.toFixed(0).padStart(8)} ${perReq(f.selfMs)}  ${f.fn} — ${f.where || f.area}`,
    );
  }
  lines.push('', `gw's own functions by total time (self + callees)`);
  for (const f of [...s.functions]
    .filter((x) => x.area.startsWith('gw:'))
    .sort((a, b) => b.totalMs - a.totalMs)
    .slice(0, n)) {
    lines.push(
      `  ${((100 * f.totalMs) / (s.busyMs || 1)).toFixed(1).padStart(5)}%  ${f.totalMs.toFixed(0).padStart(8)} ms ${perReq(f.totalMs)}  ${f.fn} — ${f.where}`,
    );
  }
  lines.push('', 'self time by area');
  for (const a of s.areas.slice(0, 20))
    lines.push(`  ${a.selfPct.toFixed(1).padStart(5)}%  ${a.selfMs.toFixed(0).padStart(8)} ms ${perReq(a.selfMs)}  ${a.area}`);
  return `${lines.join('\n')}\n`;
}

if (import.meta.main) {
  const [file, n] = process.argv.slice(2);
  if (!file) {
    process.stderr.write('usage: node bench/cpuprofile-top.ts <file.cpuprofile> [n]\n');
    process.exit(2);
  }
  process.stdout.write(formatSummary(summarizeProfile(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile), n ? Number(n) : 15));
}
