/**
 * Two gw processes on one upstream measured in ABBA order (A, B, B, A per cycle), so the machine's drift hits
 * both alike: the pooled figures of each and every run's req/s (the spread between cycles).
 */
import { pool, type Pooled } from './headline.ts';
import type { Target } from './load.ts';
import { measurePhase, type PhaseOptions, type PhaseResult } from './measure.ts';
import { envNumber } from './options.ts';
import type { GwSetup } from './scenarios.ts';
import { type Gw, startGw, startUpstream, type Upstream } from './setup.ts';

/** One upstream and two gw processes on it (`off`, `on`), and the phase options of a run at `connections`. */
export interface Pair {
  up: Upstream;
  off: Gw;
  on: Gw;
  phase(connections: number): PhaseOptions;
}

/** Starts the upstream and a gw for each setup, runs `fn`, and stops them all (on error too). */
export async function withPair<T>(offSetup: GwSetup, onSetup: GwSetup, fn: (p: Pair) => Promise<T>): Promise<T> {
  const seconds = envNumber('BENCH_SECONDS', 4);
  const stops: Array<() => Promise<void>> = [];
  try {
    const up = await startUpstream();
    stops.push(() => up.child.stop());
    const off = await startGw(offSetup, up.url);
    stops.push(() => off.stop());
    const on = await startGw(onSetup, up.url);
    stops.push(() => on.stop());
    const phase = (connections: number): PhaseOptions => ({
      connections,
      seconds,
      warmupSeconds: 1,
      streams: 0,
      streamConcurrency: 1,
      upstreamPid: up.child.proc.pid!,
      upstreamCalls: up.calls,
    });
    return await fn({ up, off, on, phase });
  } finally {
    for (const stop of stops.reverse()) await stop();
  }
}

/** A and B pooled over every cycle, and each run's req/s in the order measured. */
export interface AbbaResult {
  a: Pooled;
  b: Pooled;
  /** Per cycle: [A, B, B, A] req/s. */
  cycles: number[][];
}

/** Measures `a` and `b` (a target and its gw's pid each) in `cycles` ABBA cycles of `phase`. */
export async function abba(a: { target: Target; pid: number }, b: { target: Target; pid: number }, phase: PhaseOptions, cycles: number): Promise<AbbaResult> {
  const runs = { a: [] as PhaseResult[], b: [] as PhaseResult[] };
  const perCycle: number[][] = [];
  for (let i = 0; i < cycles; i++) {
    const rps: number[] = [];
    for (const k of ['a', 'b', 'b', 'a'] as const) {
      const side = k === 'a' ? a : b;
      const r = await measurePhase(side.target, { ...phase, gwPid: side.pid });
      runs[k].push(r);
      rps.push(r.load.requests / r.load.seconds);
    }
    perCycle.push(rps);
  }
  return { a: pool(runs.a), b: pool(runs.b), cycles: perCycle };
}
