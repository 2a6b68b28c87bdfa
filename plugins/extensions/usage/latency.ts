/**
 * Latency, TTFB and gw overhead percentiles per (model, provider) over time as DDSketches
 * (1% relative accuracy) stored as bucket counters, one field per bin, so instances merge by
 * adding; the request path adds to in-memory sketches, written every FLUSH_MS and on close.
 */
import { DDSketch } from '@datadog/sketches-js';
import type { FinishedRequest, SeriesShape, Store } from 'gw/plugin';

/** Relative accuracy of the sketches; every instance must use the same one (the bins must line up). */
export const RELATIVE_ACCURACY = 0.01;
/** Store keys (relative to the usage namespace) of the hour and minute latency buckets. */
export const LATENCY_HOURS_KEY = 'lh';
export const LATENCY_MINUTES_KEY = 'lm';
export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
/** In-memory samples are written this often. */
export const FLUSH_MS = 1000;

/** The three measures, and the prefix of their bin fields in a bucket record. */
const METRICS = [
  ['l', 'latency'],
  ['t', 'ttfb'],
  ['o', 'overhead'],
] as const;
type Prefix = (typeof METRICS)[number][0];
const QUANTILES = [
  [0.5, 'p50'],
  [0.95, 'p95'],
  [0.99, 'p99'],
] as const;

/** One series' sketches for one minute. */
interface Sketches {
  l: DDSketch;
  t: DDSketch;
  o: DDSketch;
}

const sketches = (): Sketches => ({
  l: new DDSketch({ relativeAccuracy: RELATIVE_ACCURACY }),
  t: new DDSketch({ relativeAccuracy: RELATIVE_ACCURACY }),
  o: new DDSketch({ relativeAccuracy: RELATIVE_ACCURACY }),
});

/** A sketch's bins as bucket counter deltas (`<prefix><bin>` → count, `<prefix>z` → zeros), added to `out`. */
export function binsOf(prefix: string, s: DDSketch, out: Record<string, number>): void {
  const st = s.store;
  for (let i = 0; i < st.bins.length; i++) {
    const n = st.bins[i]!;
    if (n > 0) out[prefix + (i + st.offset)] = n;
  }
  if (s.zeroCount > 0) out[`${prefix}z`] = s.zeroCount;
}

/** Rebuilds the sketch of one measure from summed bucket counters (fields `<prefix><bin>`, `<prefix>z`). */
export function sketchOf(prefix: string, counters: Record<string, number>): DDSketch {
  const s = new DDSketch({ relativeAccuracy: RELATIVE_ACCURACY });
  for (const f in counters) {
    if (f[0] !== prefix) continue;
    const n = counters[f]!;
    if (!(n > 0)) continue;
    if (f.length === 2 && f[1] === 'z') s.zeroCount += n;
    else {
      const bin = Number(f.slice(1));
      if (!Number.isInteger(bin)) continue;
      s.store.add(bin, n);
    }
    s.count += n;
  }
  return s;
}

const round = (v: number) => Math.round(v * 100) / 100;

/** The latency series for `readSeries`: by model and provider, `requests` and p50/p95/p99 of latency, ttfb and overhead. */
export const LATENCY_SHAPE: SeriesShape = {
  dims: ['model', 'provider'],
  fields(sum) {
    const out: Record<string, number> = {};
    let requests = 0;
    for (const [prefix, name] of METRICS) {
      const s = sketchOf(prefix, sum);
      if (prefix === 'l') requests = s.count;
      if (name === 'ttfb') out.streams = s.count;
      for (const [q, label] of QUANTILES) out[`${name}_${label}_ms`] = (s.count === 0 ? null : round(s.getValueAtQuantile(q))) as number;
    }
    return { requests, ...out };
  },
};

/**
 * Collects the latency samples of finished requests in memory and writes them to `store`
 * as hour and minute buckets.
 */
export class LatencyRecorder {
  /** minute start → model → provider → sketches. */
  private pending = new Map<number, Map<string, Map<string, Sketches>>>();
  private timer: NodeJS.Timeout | undefined;
  private writes = new Set<Promise<unknown>>();
  private readonly store: Store;
  private readonly hours: { bucketMs: number; retentionMs: number };
  private readonly minuteRetentionMs: number;
  private readonly now: () => number;
  private readonly onFail: (err: Error) => void;

  /** `minuteRetentionMs` 0 writes no minute buckets; `onFail` is told when a write loses samples. */
  constructor(store: Store, hours: { bucketMs: number; retentionMs: number }, minuteRetentionMs: number, now: () => number, onFail: (err: Error) => void) {
    this.store = store;
    this.hours = hours;
    this.minuteRetentionMs = minuteRetentionMs;
    this.now = now;
    this.onFail = onFail;
  }

  /** Adds a finished request's samples: answered by an upstream (not a cache hit, not an error). */
  observe(f: FinishedRequest): void {
    const rc = f.rc;
    if (rc === undefined || rc.provider === undefined || rc.cacheHit || f.status >= 400) return;
    const at = this.now();
    const minute = at - (at % MINUTE_MS);
    let byModel = this.pending.get(minute);
    if (!byModel) this.pending.set(minute, (byModel = new Map()));
    let byProvider = byModel.get(rc.servedModel);
    if (!byProvider) byModel.set(rc.servedModel, (byProvider = new Map()));
    let s = byProvider.get(rc.provider);
    if (!s) byProvider.set(rc.provider, (s = sketches()));
    s.l.accept(f.totalMs);
    if (rc.stream) s.t.accept(f.ttfbMs);
    s.o.accept(rc.attempts > 0 ? Math.max(0, f.totalMs - rc.upstreamMs) : f.totalMs);
    if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), FLUSH_MS);
      this.timer.unref();
    }
  }

  /** Writes what was collected (one bucketIncr per minute, series and bucket size); resolves when written. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending;
    this.pending = new Map();
    const ps: Promise<void>[] = [];
    const minutes = { bucketMs: MINUTE_MS, retentionMs: this.minuteRetentionMs };
    for (const [minute, byModel] of batch) {
      for (const [model, byProvider] of byModel) {
        for (const [provider, s] of byProvider) {
          const deltas: Record<string, number> = {};
          for (const [prefix] of METRICS) binsOf(prefix, s[prefix as Prefix], deltas);
          const series = JSON.stringify([model, provider]);
          ps.push(this.store.bucketIncr(LATENCY_HOURS_KEY, minute, series, deltas, this.hours));
          if (this.minuteRetentionMs > 0) ps.push(this.store.bucketIncr(LATENCY_MINUTES_KEY, minute, series, deltas, minutes));
        }
      }
    }
    const p = Promise.all(ps).then(
      () => undefined,
      (err: Error) => this.onFail(err),
    );
    this.writes.add(p);
    void p.finally(() => this.writes.delete(p));
    return p;
  }

  /** Writes what is pending and waits for every write in flight. */
  async close(): Promise<void> {
    if (this.pending.size) void this.flush();
    await Promise.all(this.writes);
  }
}
