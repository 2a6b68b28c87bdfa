/**
 * Expiry in the LevelDB store: the first read of the whole value space at open (`load`), the
 * periodic sweep that deletes what expired (TTL values through the expiry index, buckets
 * past their retention), and compaction once enough was deleted.
 */
import type { Buckets } from './buckets.ts';
import { decode, EMPTY, EXPIRY_INDEXED, EXPIRY_KEY_AT, EXPIRY_SPACE, expiryKey, expiryOf, VALUE_SPACE, windowTime } from './layout.ts';
import type { Values } from './values.ts';
import { type Db, type DbOp, type Op, queuedValue, WRITE, type WriteQueue } from './writer.ts';

/**
 * How often expired TTL values and buckets past their retention are deleted from disk (they
 * are invisible as soon as they expire). Each sweep reads only what expired since the last, so
 * it runs often: the store on disk, and LevelDB's mapped tables in RSS, follow the live keys.
 */
export const SWEEP_MS = 60_000;
/** Index entries read, checked and deleted per batch by a sweep (and values per batch at open). */
const SWEEP_CHUNK = 1_000;
/**
 * Deleted TTL values below which no compaction is asked for. Above it, a sweep compacts the
 * store once as many values were deleted since the last compaction as TTL values live (see
 * `sweep`).
 */
const COMPACT_MIN_DELETES = 10_000;

export class Sweeper {
  private running = false;
  /** TTL values deleted since the store was last compacted. */
  private deletedSinceCompaction = 0;
  private readonly db: Db;
  private readonly writer: WriteQueue;
  private readonly values: Values;
  private readonly buckets: Buckets;

  constructor(db: Db, writer: WriteQueue, values: Values, buckets: Buckets) {
    this.db = db;
    this.writer = writer;
    this.values = values;
    this.buckets = buckets;
  }

  /**
   * Reads every value on disk once, at open: fills the key filters, deletes the TTL values
   * that expired while gw was down, and indexes the expiry of the others when the store
   * predates the expiry index. Reads go to LevelDB until it is done.
   */
  async load(): Promise<void> {
    const now = Date.now();
    const filter = this.values.filter;
    const indexed = (await this.db.get(EXPIRY_INDEXED)) !== undefined;
    let ops: DbOp[] = [];
    for (const range of VALUE_SPACE) {
      for await (const [k, raw] of this.db.iterator(range)) {
        if (raw.charCodeAt(0) !== 0 || raw === EMPTY) {
          filter.addPlain(k);
          continue;
        }
        const expiresAt = expiryOf(raw);
        if (expiresAt <= now) {
          ops.push({ type: 'del', key: k });
          this.deletedSinceCompaction++;
        } else {
          filter.addExpiring(k, expiresAt, expiresAt - now);
          if (!indexed) ops.push({ type: 'put', key: expiryKey(expiresAt, k), value: EMPTY });
        }
        // the iterator reads a snapshot: writing while it runs changes nothing it yields
        if (ops.length >= SWEEP_CHUNK) {
          await this.db.batch(ops, WRITE);
          ops = [];
        }
      }
    }
    if (!indexed) ops.push({ type: 'put', key: EXPIRY_INDEXED, value: '1' });
    if (ops.length) await this.db.batch(ops, WRITE);
    filter.ready = true;
  }

  /**
   * Deletes buckets past their retention and the TTL values that expired, found through the
   * expiry index (only what expired is read), and forgets the ended expiry generations. A
   * value is re-read before its delete is queued, and a `set` in between takes it out of
   * `sweeping`: a fresh value is never deleted (no lock on `set`). `now` (epoch ms) is for tests.
   */
  async sweep(now = Date.now()): Promise<void> {
    if (this.running) return; // the last sweep is still running
    this.running = true;
    try {
      await this.buckets.pruneWritten();
      const lt = EXPIRY_SPACE + windowTime(now + 1);
      let gt = EXPIRY_SPACE;
      for (;;) {
        const entries = await this.db.keys({ gt, lt, limit: SWEEP_CHUNK }).all();
        if (entries.length === 0) break;
        gt = entries[entries.length - 1]!;
        await this.deleteExpired(entries, now);
      }
      const filter = this.values.filter;
      filter.forget(now);
      // LevelDB frees a deleted value's space only when a compaction merges its tombstone with
      // it, and cache keys are hashes spread over the whole key space: under steady churn the
      // store on disk (and its tables mapped in RSS) kept growing at the write rate. Compacting
      // once the garbage matches the live data keeps it near twice the live size; the cost,
      // rewriting the store, is spread over as many writes as it holds.
      if (this.deletedSinceCompaction >= Math.max(COMPACT_MIN_DELETES, filter.liveExpiring(now))) {
        this.deletedSinceCompaction = 0;
        await this.db.compactRange('\u0000', '\uffff');
      }
    } finally {
      this.running = false;
    }
  }

  /** Deletes the expiry index `entries` (all expired) and the values they name that are still expired TTL values. */
  private async deleteExpired(entries: string[], now: number): Promise<void> {
    const sweeping = this.values.sweeping;
    const keys = entries.map((e) => e.slice(EXPIRY_KEY_AT));
    for (const k of keys) sweeping.add(k);
    let raws: Array<string | undefined>;
    try {
      raws = await this.db.getMany(keys);
    } catch (err) {
      for (const k of keys) sweeping.delete(k);
      throw err;
    }
    // no await from these checks to the queued deletes
    const ops: Op[] = [];
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      // false: set since the read, or a second index entry of the same key in this chunk
      if (sweeping.delete(k)) {
        const q = this.writer.queued(k);
        const raw = q !== undefined ? queuedValue(q) : raws[i];
        // undefined from decode: an expired TTL value (a plain value comes back as is)
        if (raw !== undefined && decode(raw, now) === undefined) ops.push({ type: 'del', key: k });
      }
      ops.push({ type: 'del', key: entries[i]! });
    }
    this.deletedSinceCompaction += ops.length - entries.length;
    for (const op of ops) this.writer.enqueue(op);
    await this.writer.done();
  }
}
