/**
 * ABBA order for an off/on comparison: each cycle measures off, on, on, off, so a machine
 * that drifts (other load, thermal limits) hits both settings alike. Also the two gw
 * processes such a comparison runs on (`withPair`) and its usual measurement, load phases
 * pooled per setting with each cycle's req/s (`abbaPhases`).
 */
import { pool, type Pooled } from './headline.ts';
import type { Target } from './load.ts';
import { measurePhase, type PhaseOptions } from './measure.ts';
import { envNumber } from './options.ts';
import type { GwSetup } from './scenarios.ts';
import { type Gw, startGw, startUpstream, type Upstream } from './setup.ts';

/**
 * Runs `measure` for `cycles` ABBA cycles over the two sides and returns each setting's
 * results in run order (and calls `each` after every run, for per-run reports).
 */
export async function abba<S, R>(
  off: S,
  on: S,
  cycles: number,
  measure: (side: S) => Promise<R>,
  each?: (setting: 'off' | 'on', r: R) => void,
): Promise<{ off: R[]; on: R[] }> {
  const out = { off: [] as R[], on: [] as R[] };
  const order = [
    ['off', off],
    ['on', on],
  ] as const;
  for (let i = 0; i < cycles; i++)
    for (const [k, side] of [...order, ...order.toReversed()]) {
      const r = await measure(side);
      out[k].push(r);
      each?.(k, r);
    }
  return out;
}

/**
 * The added cost of `on` over `off` (each run returns a number, e.g. µs of CPU per request):
 * one discarded run of each first (the JIT settles), then `cycles` ABBA cycles; each cycle's
 * delta is (on + on − off − off) / 2. Returns the median cycle's delta and every cycle's.
 */
export async function abbaDelta(cycles: number, off: () => Promise<number>, on: () => Promise<number>): Promise<{ median: number; cycles: number[] }> {
  await off();
  await on();
  const r = await abba(off, on, cycles, (run) => run());
  const deltas: number[] = [];
  for (let c = 0; c < cycles; c++) deltas.push((r.on[2 * c]! + r.on[2 * c + 1]! - r.off[2 * c]! - r.off[2 * c + 1]!) / 2);
  const sorted = deltas.toSorted((x, y) => x - y);
  return { median: sorted[Math.floor(sorted.length / 2)]!, cycles: deltas };
}

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

/** Off and on pooled over every cycle, and each run's req/s in the order measured. */
export interface AbbaResult {
  off: Pooled;
  on: Pooled;
  /** Per cycle: [off, on, on, off] req/s. */
  cycles: number[][];
}

/** Load phases of `pair` at `connections` against `target(g)` on each side, in `cycles` ABBA cycles. */
export async function abbaPhases(pair: Pair, connections: number, target: (g: Gw) => Target, cycles: number): Promise<AbbaResult> {
  const rps: number[] = [];
  const runs = await abba(
    pair.off,
    pair.on,
    cycles,
    (g) => measurePhase(target(g), { ...pair.phase(connections), gwPid: g.child.proc.pid! }),
    (_, r) => rps.push(r.load.requests / r.load.seconds),
  );
  const perCycle: number[][] = [];
  for (let i = 0; i < rps.length; i += 4) perCycle.push(rps.slice(i, i + 4));
  return { off: pool(runs.off), on: pool(runs.on), cycles: perCycle };
}
