/**
 * The store every plugin gets: one backend (LevelDB by default), namespaced per plugin.
 *
 * A backend must make each method atomic on its own: two concurrent `incr` calls on one
 * key never lose an update, in one process (LevelDB) or across processes (Redis). Values
 * are strings; callers encode JSON themselves so a backend never guesses types.
 * Plugins never learn which backend they have; everything they need is below.
 *
 * Six kinds of data, each with its own methods (a key used by one kind is not read by another):
 *   values    get/set/delete/entries/clear; `set` may give a TTL.
 *   counters  incr/counters: a record of numeric fields, atomically updated; durable on resolve.
 *             Counters are values too (JSON text), so `entries` lists them.
 *   windows   windowAdmit/windowAdd: sliding-window logs of (time, amount) entries, for
 *             rate limits; entries older than the window are dropped; survive a restart.
 *   holds     hold/settle/release: temporary reservations against a counter field, for
 *             budgets; never durable (a crashed holder must not leak a hold) and TTL'd.
 *   buckets   bucketIncr/buckets: counter records per (time bucket, series), for usage and
 *             spend over time; each bucket is dropped a retention period after it ends.
 *   rings     ringPush/ringRead: the newest N values of a log (the request log), read
 *             newest first with a stable cursor.
 *
 * Backends are store plugins (StorePlugin, plugin.ts), chosen by the scheme
 * of `[store] url`: LevelDB (plugins/stores/level/, the embedded default) and Redis
 * (plugins/stores/redis/: one Lua script per multi-step method, server time for windows,
 * holds owned by a live instance). Both pass the same conformance tests
 * (test/unit/store-conformance.ts); a new backend should too.
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
  /**
   * Atomically adds `deltas` to the numeric fields of the counter record at `key`
   * (missing fields start at 0) and returns the record after the update. Durable on resolve.
   */
  incr(key: string, deltas: Record<string, number>): Promise<Record<string, number>>;
  /** The counter record at `key` ({} when absent). */
  counters(key: string): Promise<Record<string, number>>;
  /**
   * Atomically removes `fields` from the counter record at `key` (absent ones are ignored;
   * the other fields and the holds on `key` stay). Durable on resolve. Optional: without it
   * a caller's old fields stay in the record (it only grows).
   */
  dropFields?(key: string, fields: readonly string[]): Promise<void>;
  /**
   * Sliding-window admission, atomic per `key`: drops entries older than `windowMs`
   * (relative to `now`, epoch ms), sums the remaining amounts into `total`, and admits
   * when `total + pending < limit`; an admitted call then records `cost` at `now`
   * (`cost: 0` only checks). `pending` is what the caller knows is coming but has not yet
   * recorded (tokens counted from a stream in flight). Exact under concurrency: with
   * `cost: 1` no more than `limit` calls are admitted in any `windowMs` span.
   * When refused, `retryAfterMs` is the time until enough entries leave the window
   * (at most `windowMs`). Recorded entries survive a restart.
   */
  windowAdmit(key: string, limit: number, windowMs: number, opts?: { cost?: number; pending?: number; now?: number }): Promise<WindowVerdict>;
  /** Records `amount` at `now` in the window at `key` unconditionally (usage that already happened). Durable on resolve. */
  windowAdd(key: string, amount: number, windowMs: number, now?: number): Promise<void>;
  /**
   * Places a hold, atomic per `key` together with `incr`/`settle` on the same key: refused
   * when `counters(key)[field] + (live holds on key except id) >= limit`, and with `fit`
   * also when that sum + `amount` is over `limit` (`holdAdmits`, sdk/hold-rule.ts); else
   * records the hold `id` = `amount` for `ttlMs` (then it lapses by itself). Holds are not
   * durable: a restart or crash drops them, so a dead request never keeps a reservation.
   */
  hold(key: string, id: string, amount: number, opts: HoldOptions): Promise<HoldVerdict>;
  /** Atomically `incr(key, deltas)` and drops hold `id` (absent hold: just the incr). Durable on resolve. */
  settle(key: string, id: string, deltas: Record<string, number>): Promise<Record<string, number>>;
  /** Drops hold `id` on `key` (idempotent). */
  release(key: string, id: string): Promise<void>;
  /** Sum of the live holds on `key`. */
  held(key: string): Promise<number>;
  /**
   * Time-bucketed counters: atomically adds `deltas` to the counter record of `series` in
   * the bucket holding `at` (epoch ms; buckets start at whole multiples of `bucketMs` since
   * the epoch, so hours and days are UTC). The bucket is dropped `retentionMs` after it
   * ends. Exact under concurrency (across processes on a shared backend); durable on
   * resolve. `series` is any string (callers use JSON); field names must not contain U+0000.
   * One key keeps one `bucketMs` and one `retentionMs`.
   */
  bucketIncr(key: string, at: number, series: string, deltas: Record<string, number>, opts: { bucketMs: number; retentionMs: number }): Promise<void>;
  /**
   * The bucket records at `key` whose bucket starts in [`from`, `to`) (epoch ms), oldest
   * bucket first, then by series; `bucketMs` is the one `bucketIncr` used. Buckets past
   * their retention may still be listed until the backend prunes them (callers bound `from`).
   */
  buckets(key: string, from: number, to: number, bucketMs: number): AsyncIterable<BucketRow>;
  /**
   * Appends `value` to the ring at `key` and drops all but its newest `maxLen` values, in
   * one atomic step (a shared backend keeps one ring for every process). Returns the value's
   * sequence number: increasing per ring, never reused. Durable on resolve. One key keeps
   * one `maxLen`.
   */
  ringPush(key: string, value: string, maxLen: number): Promise<number>;
  /**
   * The ring's values newest first, as `[seq, value]`: at most `limit`, and only those with
   * `seq < before` when given (a stable cursor: values pushed meanwhile do not shift pages).
   * Lazy: stop iterating and nothing more is read.
   */
  ringRead(key: string, opts?: { limit?: number; before?: number }): AsyncIterable<[seq: number, value: string]>;
  /**
   * Runs `fn` while holding an exclusive lock on `key` (per store, across this backend's
   * clients). Extensions use it to make read-check-write sequences atomic.
   */
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
  /**
   * The hold must fit in what is left: refused when value + other holds + `amount` is over
   * `limit` (beyond a relative 1e-9, for float sums), not only when the limit is reached.
   */
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
