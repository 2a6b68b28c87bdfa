/**
 * Each server's calls per minute, latency percentiles and error rate over the last minutes,
 * for the console's MCP page and `GET /v1/admin/mcp-servers`, the same on every instance:
 * counters in the store's minute buckets (`store.bucketIncr`, atomic, summed across instances).
 *
 * Latency is a histogram of logarithmic bins, each 10% wider than the one before from 0.01 ms
 * (field `h<bin>`), so the bins of two instances add up and a percentile read back is within
 * 5% of a true sample at that rank. The call path only adds to in-memory counters; they are
 * written every FLUSH_MS, one `bucketIncr` per (minute, server), and on close.
 */
import type { Store } from '../lib/store/types.ts';

const MINUTE_MS = 60_000;
/** Minutes the figures cover. */
export const WINDOW_MINUTES = 5;
const RETENTION_MS = 60 * MINUTE_MS;
const FLUSH_MS = 1000;
const KEY = 'stats';
const GROWTH = Math.log(1.1);
const SCALE = 100;

/** A server's figures over the last WINDOW_MINUTES minutes; null where there were no calls. */
export interface ServerStats {
  calls_per_minute: number;
  p50_ms: number | null;
  p95_ms: number | null;
  /** Calls that did not end `ok`, of all calls (0…1). */
  error_rate: number | null;
}

const binOf = (ms: number): number => (ms * SCALE <= 1 ? 0 : Math.ceil(Math.log(ms * SCALE) / GROWTH));
/** The middle of a bin (geometric): within 5% of every value in it. */
const binValue = (bin: number): number => (bin === 0 ? 0.01 : Math.exp((bin - 0.5) * GROWTH) / SCALE);

export class CallStats {
  private readonly store: Store;
  private readonly onFail: (err: Error) => void;
  /** minute start → server → counter deltas. */
  private pending = new Map<number, Map<string, Record<string, number>>>();
  private timer: NodeJS.Timeout | undefined;
  private readonly writes = new Set<Promise<unknown>>();

  /** @param store the `mcp` namespace; @param onFail told when a write fails (the figures lose it, never a call). */
  constructor(store: Store, onFail: (err: Error) => void) {
    this.store = store;
    this.onFail = onFail;
  }

  /** One ended call of `server`: `ms` long, `ok` or not. */
  record(server: string, ms: number, ok: boolean): void {
    const now = Date.now();
    const minute = now - (now % MINUTE_MS);
    let byServer = this.pending.get(minute);
    if (!byServer) this.pending.set(minute, (byServer = new Map()));
    let c = byServer.get(server);
    if (!c) byServer.set(server, (c = { calls: 0 }));
    c.calls!++;
    if (!ok) c.errors = (c.errors ?? 0) + 1;
    const bin = `h${binOf(ms)}`;
    c[bin] = (c[bin] ?? 0) + 1;
    if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), FLUSH_MS);
      this.timer.unref();
    }
  }

  /** Writes what is pending; resolves when written. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending;
    this.pending = new Map();
    const ps: Promise<void>[] = [];
    for (const [minute, byServer] of batch)
      for (const [server, deltas] of byServer) ps.push(this.store.bucketIncr(KEY, minute, server, deltas, { bucketMs: MINUTE_MS, retentionMs: RETENTION_MS }));
    const p = Promise.all(ps).then(
      () => undefined,
      (err: Error) => this.onFail(err),
    );
    this.writes.add(p);
    void p.finally(() => this.writes.delete(p));
    return p;
  }

  /** Every server's figures over the last WINDOW_MINUTES minutes (this instance's pending calls included). */
  async read(): Promise<Map<string, ServerStats>> {
    await this.flush();
    const now = Date.now();
    const from = now - (now % MINUTE_MS) - (WINDOW_MINUTES - 1) * MINUTE_MS;
    const sums = new Map<string, Record<string, number>>();
    for await (const row of this.store.buckets(KEY, from, now + 1, MINUTE_MS)) {
      let s = sums.get(row.series);
      if (!s) sums.set(row.series, (s = {}));
      for (const f in row.counters) s[f] = (s[f] ?? 0) + row.counters[f]!;
    }
    const out = new Map<string, ServerStats>();
    for (const [server, s] of sums) {
      const calls = s.calls ?? 0;
      out.set(server, {
        calls_per_minute: Math.round((calls / WINDOW_MINUTES) * 100) / 100,
        p50_ms: quantile(s, calls, 0.5),
        p95_ms: quantile(s, calls, 0.95),
        error_rate: calls === 0 ? null : Math.round(((s.errors ?? 0) / calls) * 10_000) / 10_000,
      });
    }
    return out;
  }

  async close(): Promise<void> {
    if (this.pending.size) void this.flush();
    await Promise.all(this.writes);
  }
}

/** The `q` quantile of the histogram in `s` (fields `h<bin>`), ms to 2 decimals; null without calls. */
function quantile(s: Record<string, number>, calls: number, q: number): number | null {
  if (calls === 0) return null;
  const bins: Array<[number, number]> = [];
  for (const f in s) if (f[0] === 'h') bins.push([Number(f.slice(1)), s[f]!]);
  bins.sort((a, b) => a[0] - b[0]);
  const rank = q * calls;
  let seen = 0;
  for (const [bin, n] of bins) {
    seen += n;
    if (seen >= rank) return Math.round(binValue(bin) * 100) / 100;
  }
  return Math.round(binValue(bins[bins.length - 1]![0]) * 100) / 100;
}
