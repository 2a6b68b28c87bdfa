/**
 * The store every plugin gets, namespaced per plugin; backends are store plugins (plugin.ts)
 * and pass test/unit/store-conformance.ts. Each method is atomic on its own, across processes
 * on a shared backend; values are strings. Its six kinds of data (values, counters, windows,
 * holds, buckets, rings) and their rules: docs/plugins.md "The store".
 */
import { defineError } from '../../core/errors.ts';
export interface Store {
  /** A view of this store whose keys all live under `<ns>:`; views nest. */
  namespace(ns: string): Store;
  /** The value, or undefined when absent or expired. */
  get(key: string): Promise<string | undefined>;
  /** Writes a value; with `ttlMs` it expires after that many milliseconds. Durable when the promise resolves. */
  set(key: string, value: string, opts?: { ttlMs?: number }): Promise<void>;
  delete(key: string): Promise<void>;
  /** Live entries (values and counters) whose key starts with `prefix` (relative to this namespace), in key order. */
  entries(prefix?: string): AsyncIterable<[key: string, value: string]>;
  /** Deletes every value and counter under `prefix` (relative to this namespace; '' = the whole namespace). */
  clear(prefix?: string): Promise<void>;
  /** Atomically adds `deltas` to the counter record at `key` (missing fields start at 0); the record after. Durable on resolve. */
  incr(key: string, deltas: Record<string, number>): Promise<Record<string, number>>;
  /** The counter record at `key` ({} when absent). */
  counters(key: string): Promise<Record<string, number>>;
  /** Atomically removes `fields` from the counter record at `key`, holds kept. Optional: without it a record only grows. */
  dropFields?(key: string, fields: readonly string[]): Promise<void>;
  /**
   * Sliding-window admission, atomic per `key`: admits when the amounts of the last `windowMs`
   * plus `pending` (coming, not yet recorded) are under `limit`, then records `cost` at `now`
   * (epoch ms; `cost: 0` only checks). Exact under concurrency; entries survive a restart.
   */
  windowAdmit(key: string, limit: number, windowMs: number, opts?: { cost?: number; pending?: number; now?: number }): Promise<WindowVerdict>;
  /** Records `amount` at `now` in the window at `key` unconditionally (usage that already happened). Durable on resolve. */
  windowAdd(key: string, amount: number, windowMs: number, now?: number): Promise<void>;
  /**
   * Places hold `id` = `amount` for `ttlMs`, atomic with `incr`/`settle` on `key`, unless
   * `holdAdmits` (sdk/hold-rule.ts) refuses it. Never durable: a dead request keeps no hold.
   */
  hold(key: string, id: string, amount: number, opts: HoldOptions): Promise<HoldVerdict>;
  /** Atomically `incr(key, deltas)` and drops hold `id` (absent hold: just the incr). Durable on resolve. */
  settle(key: string, id: string, deltas: Record<string, number>): Promise<Record<string, number>>;
  /** Drops hold `id` on `key` (idempotent). */
  release(key: string, id: string): Promise<void>;
  /** Sum of the live holds on `key`. */
  held(key: string): Promise<number>;
  /**
   * Atomically adds `deltas` to `series`' record in the bucket holding `at` (epoch ms; buckets
   * start at multiples of `bucketMs`, UTC), dropped `retentionMs` after it ends. Durable on resolve.
   */
  bucketIncr(key: string, at: number, series: string, deltas: Record<string, number>, opts: { bucketMs: number; retentionMs: number }): Promise<void>;
  /** The records of buckets starting in [`from`, `to`), oldest first, then by series (expired ones may linger: bound `from`). */
  buckets(key: string, from: number, to: number, bucketMs: number): AsyncIterable<BucketRow>;
  /** Appends `value` and keeps the newest `maxLen`, atomically; its sequence number (increasing, never reused). Durable on resolve. */
  ringPush(key: string, value: string, maxLen: number): Promise<number>;
  /** The ring newest first as `[seq, value]`: at most `limit`, `seq < before` when given (a stable cursor); lazy. */
  ringRead(key: string, opts?: { limit?: number; before?: number }): AsyncIterable<[seq: number, value: string]>;
  /** Runs `fn` holding an exclusive lock on `key` (across this backend's clients): read-check-write made atomic. */
  withLock<T>(key: string, fn: () => Promise<T>): Promise<T>;
  /** Flushes and closes the backend; only the root store closes it. */
  close(): Promise<void>;
}

/** Outcome of `windowAdmit`. */
export interface WindowVerdict {
  admitted: boolean;
  /** Sum of the amounts in the window before this call recorded anything. */
  total: number;
  /** When refused: ms until the call could be admitted (1..windowMs); 0 when admitted. */
  retryAfterMs: number;
}

/** How `hold` admits. */
export interface HoldOptions {
  /** The counter field the holds are against (e.g. `usd`). */
  field: string;
  limit: number;
  ttlMs: number;
  /** Refuse a hold that does not fit in what is left (beyond a relative 1e-9), not only at the limit. */
  fit?: boolean;
}

/** Outcome of `hold`. */
export interface HoldVerdict {
  admitted: boolean;
  /** The counter field's value (e.g. spend so far). */
  value: number;
  /** Sum of the other live holds on the key at the time of the check. */
  held: number;
}

/** One row of `buckets`: a series' counters in one bucket. */
export interface BucketRow {
  /** Bucket start, epoch ms. */
  start: number;
  series: string;
  counters: Record<string, number>;
}

/** A store call failed (unreachable, timed out): 503, counted as a refusal when it refuses a request. */
export const STORE_UNAVAILABLE = defineError<string>('store_unavailable', 503, (detail) => `the store is unavailable: ${detail}`, {
  refusal: 'store_unavailable',
});
