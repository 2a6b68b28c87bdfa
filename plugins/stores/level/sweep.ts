/** Expiry in the LevelDB store: the first read at open, the periodic sweep through the expiry index, compaction. */
import type { Buckets } from './buckets.ts';
import { decode, EMPTY, EXPIRY_INDEXED, EXPIRY_KEY_AT, EXPIRY_SPACE, expiryKey, expiryOf, VALUE_SPACE, windowTime } from './layout.ts';
import type { Values } from './values.ts';
import { type Db, type DbOp, type Op, queuedValue, WRITE, type WriteQueue } from './writer.ts';

/** How often what expired is deleted from disk (invisible at once); often, so disk and RSS follow the live keys. */
export const SWEEP_MS = 60_000;
/** Index entries read, checked and deleted per batch by a sweep (and values per batch at open). */
const SWEEP_CHUNK = 1_000;
/** Deletes below which no compaction is asked for; above, once as many were deleted as TTL values live. */
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

  /** Reads every value once at open: the key filters filled, expired values deleted, an older store indexed. */
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

  /** Deletes expired buckets and TTL values (re-read first: a `set` meanwhile saves a fresh one, no lock). */
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
      // only compaction frees deleted values, and cache keys are spread over the whole key space:
      // compacting once garbage matches live data keeps the store near twice its live size
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
