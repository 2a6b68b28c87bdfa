/** The LevelDB store's value space: values (a TTL one with its expiry index entry) and counter records, through the filters and the write queue. */
import type { ValueFilter } from './filter.ts';
import { decode, EMPTY, EXPIRY_SPACE, expiryKey, TTL_MARK, VALUE_SPACE } from './layout.ts';
import { type Db, queuedValue, type WriteQueue } from './writer.ts';

export class Values {
  readonly filter: ValueFilter;
  /** TTL'd keys the sweeper is checking; a `set` takes its key out so the sweeper leaves it alone. */
  readonly sweeping = new Set<string>();
  private readonly db: Db;
  private readonly writer: WriteQueue;

  constructor(db: Db, writer: WriteQueue, filter: ValueFilter) {
    this.db = db;
    this.writer = writer;
    this.filter = filter;
  }

  /** Reads a key, seeing queued writes first; a key no filter has is not looked up. */
  async read(key: string): Promise<string | undefined> {
    const q = this.writer.queued(key);
    if (q !== undefined) return queuedValue(q);
    if (this.filter.ready && key.charCodeAt(0) !== 1 && !this.filter.mightHave(key)) return undefined;
    return this.db.get(key);
  }

  /** The value at `key` (a full key), undefined when absent or expired. */
  async get(key: string): Promise<string | undefined> {
    const raw = await this.read(key);
    if (raw === undefined) return undefined;
    return decode(raw, Date.now());
  }

  /** Puts a plain value (a counter record serialized when its batch goes out); resolves once in LevelDB's log. */
  put(key: string, value: string | (() => string)): Promise<void> {
    // a key whose plain put is still queued went into the filter with that put: the counters
    // written on every request skip the hashing (a queued TTL put is in a generation only)
    const queued = this.writer.queued(key);
    if (queued == null || (typeof queued === 'string' && queued.charCodeAt(0) === 0)) this.filter.addPlain(key);
    return this.writer.write({ type: 'put', key, value });
  }

  /** Writes a value, expiring after `ttlMs` when given; a sweep under way leaves the key alone. */
  set(key: string, value: string, ttlMs: number | undefined): Promise<void> {
    if (this.sweeping.size > 0) this.sweeping.delete(key);
    if (!ttlMs) return this.put(key, value);
    const expiresAt = Date.now() + ttlMs;
    // the key goes in its expiry generation's filter, not in `present`
    this.filter.addExpiring(key, expiresAt, ttlMs);
    this.writer.enqueue({ type: 'put', key, value: `${TTL_MARK}${expiresAt}${TTL_MARK}${value}` });
    this.writer.enqueue({ type: 'put', key: expiryKey(expiresAt, key), value: EMPTY });
    return this.writer.done();
  }

  delete(key: string): Promise<void> {
    return this.writer.write({ type: 'del', key });
  }

  /** Live values and counters whose full key starts with `start`, in key order, keyed without their first `cut` characters. */
  async *entries(start: string, cut: number): AsyncIterable<[string, string]> {
    const now = Date.now();
    await this.writer.drain();
    for await (const [k, raw] of this.db.iterator({ gte: start, lt: `${start}\uffff` })) {
      if (k.charCodeAt(0) === 1) continue; // window entries (only reachable from the root view)
      const v = decode(raw, now);
      if (v !== undefined) yield [k.slice(cut), v];
    }
  }

  /** Deletes the values and counters under `start` ('' = every one, and the expiry index). */
  async clear(start: string): Promise<void> {
    await this.writer.drain();
    if (start !== '') await this.db.clear({ gte: start, lt: `${start}\uffff` });
    else for (const range of [...VALUE_SPACE, { gte: EXPIRY_SPACE, lt: `${EXPIRY_SPACE}\uffff` }]) await this.db.clear(range);
  }
}
