/**
 * The store every plugin gets: one backend (LevelDB by default), namespaced per plugin.
 * A backend must make each method atomic on its own: two concurrent `incr` calls on one
 * key never lose an update, in one process (LevelDB) or across processes (Redis).
 * Values are strings; callers encode JSON themselves so a backend never guesses types.
 */
export interface Store {
  /** A view of this store whose keys all live under `<ns>:`; views nest. */
  namespace(ns: string): Store;
  /** The value, or undefined when absent or expired. */
  get(key: string): Promise<string | undefined>;
  /** Writes a value; with `ttlMs` it expires after that many milliseconds. Durable when the promise resolves. */
  set(key: string, value: string, opts?: { ttlMs?: number }): Promise<void>;
  delete(key: string): Promise<void>;
  /** Live entries whose key starts with `prefix` (relative to this namespace), in key order. */
  entries(prefix?: string): AsyncIterable<[key: string, value: string]>;
  /** Deletes every entry under `prefix` (relative to this namespace; '' = the whole namespace). */
  clear(prefix?: string): Promise<void>;
  /**
   * Atomically adds `deltas` to the numeric fields of the counter record at `key`
   * (missing fields start at 0) and returns the record after the update. Durable on resolve.
   */
  incr(key: string, deltas: Record<string, number>): Promise<Record<string, number>>;
  /** The counter record at `key` ({} when absent). */
  counters(key: string): Promise<Record<string, number>>;
  /**
   * Runs `fn` while holding an exclusive lock on `key` (per store, across this backend's
   * clients). Extensions use it to make read-check-write sequences atomic.
   */
  withLock<T>(key: string, fn: () => Promise<T>): Promise<T>;
  /** Flushes and closes the backend; only the root store closes it. */
  close(): Promise<void>;
}
