/**
 * The memory settings `gw serve` runs with, however started: V8 sizes its young generation at
 * start, so the process re-executes itself once (`process.execve`) with the flags below, keeping
 * any the operator gave. why: docs/benchmarks.md#heap-settings
 */
import { existsSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';

/** Young generation cap per semi-space, MB. */
const SEMI_SPACE_MB = 8;
/** The old generation's growing factor between two mark-compacts, as V8's percent (1.5x). */
const HEAP_GROWING_PERCENT = 50;
const MALLOC_ARENAS = '2';
/** Where distributions install jemalloc 5's shared library (Debian/Ubuntu multiarch, Fedora/RHEL, Alpine/Arch). */
export const JEMALLOC_PATHS = [
  '/usr/lib/x86_64-linux-gnu/libjemalloc.so.2',
  '/usr/lib/aarch64-linux-gnu/libjemalloc.so.2',
  '/usr/lib64/libjemalloc.so.2',
  '/usr/lib/libjemalloc.so.2',
];
/**
 * jemalloc's settings: two arenas (gw's JS runs on one thread; LevelDB's work on a few), and
 * freed pages returned to the system after 1 s instead of 10 (RSS follows use, not its peak).
 */
const JEMALLOC_CONF = 'narenas:2,dirty_decay_ms:1000,muzzy_decay_ms:0';
/** Set in the replaced process's environment: never re-exec twice. */
const MARK = 'GW_HEAP_TUNED';
/** A profiler or debugger on this process would split its output or lose its session across a re-exec. */
const DIAGNOSTIC = /--(cpu-prof|heap-prof|prof\b|inspect)/;

/** What the serving process is re-executed with: extra node flags and environment. */
export interface HeapPlan {
  flags: string[];
  env: Record<string, string>;
}

/** The re-exec `gw serve` needs (the flags and environment the operator did not set, jemalloc when found), or undefined. */
export function heapPlan(execArgv: string[], env: NodeJS.ProcessEnv, jemalloc?: string): HeapPlan | undefined {
  const given = `${execArgv.join(' ')} ${env.NODE_OPTIONS ?? ''}`;
  if (env[MARK] === '1' || DIAGNOSTIC.test(given)) return undefined;
  const flags: string[] = [];
  if (!/--max-semi-space-size/.test(given)) flags.push(`--max-semi-space-size=${SEMI_SPACE_MB}`);
  if (!/--heap-growing-percent/.test(given)) flags.push(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  const preload = jemalloc !== undefined && env.GW_MALLOC !== 'system' && !env.LD_PRELOAD;
  if (flags.length === 0 && !preload) return undefined;
  const out: Record<string, string> = { [MARK]: '1' };
  if (!env.MALLOC_ARENA_MAX) out.MALLOC_ARENA_MAX = MALLOC_ARENAS;
  if (preload) {
    out.LD_PRELOAD = jemalloc;
    if (!env.MALLOC_CONF) out.MALLOC_CONF = JEMALLOC_CONF;
  }
  return { flags, env: out };
}

/** The first of JEMALLOC_PATHS present on this system (Linux only), or undefined. */
export function findJemalloc(exists: (path: string) => boolean = existsSync): string | undefined {
  if (process.platform !== 'linux') return undefined;
  return JEMALLOC_PATHS.find((p) => exists(p));
}

/** Re-executes this process as `heapPlan` says; returns when none is needed, possible or wanted. */
export function tuneHeap(): void {
  const execve = (process as { execve?: (file: string, args: string[], env: NodeJS.ProcessEnv) => never }).execve;
  if (typeof execve !== 'function') return;
  const plan = heapPlan(process.execArgv, process.env, findJemalloc());
  if (!plan) return;
  execve(process.execPath, [process.execPath, ...process.execArgv, ...plan.flags, ...process.argv.slice(1)], { ...process.env, ...plan.env });
}

/** Lets the young generation grow again under load (V8's default factor); call once serving (cli/gw.js holds it while gw loads). */
export function servingHeap(): void {
  setFlagsFromString('--semi-space-growth-factor=2');
}
