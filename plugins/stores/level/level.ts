/**
 * The embedded store: LevelDB (`level`) under `data_dir`. One process owns the database
 * (LevelDB takes a file lock), so the in-memory copies of counters, windows and holds are
 * authoritative once loaded, and atomicity is plain single-threaded JS: a read-check-write
 * on a loaded record runs without an await (no lock, no disk read), and a per-key lock
 * only guards the first load of a record. Those copies are kept while in use: a counter,
 * window or hold nobody touched for IDLE_MS to 2 x IDLE_MS is dropped from memory (the
 * disk has it), so memory follows the live keys, not every key ever seen.
 * Every write is in LevelDB's write-ahead log, in the operating system's hands, when its
 * promise resolves: it survives a process crash (kill -9) and a restart. Writes are not
 * fsynced one by one (`sync: false`): an fsync per request cost more than everything
 * else gw does for it, and only a machine crash or power loss could drop the last
 * moments of writes (for that, run the Redis store with `appendfsync always`).
 */
import { type BucketRow, type HoldOptions, type HoldVerdict, holdAdmits, KeyLocks, type Store, UserError, type WindowVerdict } from 'gw/plugin';
import { Level } from 'level';
import { HoldSet } from './hold-set.ts';
import { IdleMap } from './idle-map.ts';
import { hash1, hash2, KeyFilter } from './key-filter.ts';
import { WindowLog } from './window-log.ts';

/** TTL entries are stored as `\u0000<expiresAtMs>\u0000<value>` so plain values need no envelope. */
const TTL_MARK = '\u0000';
/**
 * What an empty string is stored as: LevelDB is never handed an empty value. classic-level
 * 3.0.0 leaks a native allocation for every empty key or value it is given (binding.cc:
 * `ToSlice` copies into `new char[size + 1]`, `DisposeSliceBuffer` frees only non-empty
 * slices), and every TTL value has an index entry: that was 8 bytes per cache write, ~1 MiB
 * of RSS a minute at 1,700 req/s, never returned. A lone mark is no TTL envelope (that needs
 * two), so nothing else reads as it.
 */
const EMPTY = TTL_MARK;
/** Window entries live outside every namespace's key range: `\u0001w\u0000<ns key>\u0000<seq>`. */
const WINDOW_SPACE = '\u0001w\u0000';
/** Bucket records: `\u0001b\u0000<ns key>\u0000<start>\u0000<series>`, bucket starts in key order. */
const BUCKET_SPACE = '\u0001b\u0000';
/** Ring values: `\u0001r\u0000<ns key>\u0000<seq>`. */
const RING_SPACE = '\u0001r\u0000';
/**
 * Expiry index: `\u0001e\u0000<expiresAt, windowTime>\u0000<key>` → EMPTY beside every TTL value, so
 * the sweep reads only the entries that expired, not the whole store.
 */
const EXPIRY_SPACE = '\u0001e\u0000';
/**
 * Present once every TTL value on disk has its expiry index entry: stores from before the
 * index are indexed once, at open. (A value written meanwhile by an older gw has no entry:
 * the scan at the next open deletes it once expired.)
 */
const EXPIRY_INDEXED = '\u0001m\u0000expiry-index';
/**
 * How often expired TTL values and buckets past their retention are deleted from disk (they
 * are invisible as soon as they expire). Each sweep reads only what expired since the last, so
 * it runs often: the store on disk, and LevelDB's mapped tables in RSS, follow the live keys.
 */
const SWEEP_MS = 60_000;
/** Index entries read, checked and deleted per batch by a sweep. */
const SWEEP_CHUNK = 1_000;
/**
 * Deleted TTL values below which no compaction is asked for. Above it, a sweep compacts the
 * store once as many values were deleted since the last compaction as TTL values live (see
 * `sweep`).
 */
const COMPACT_MIN_DELETES = 10_000;
/** Counters and windows untouched this long (to twice as long) leave memory; above the longest window (60 s). */
const IDLE_MS = 2 * 60_000;
/** Expired window entries go in one range delete per window at most this often. */
const WINDOW_TRIM_MS = 1_000;

/** A number as a fixed-width decimal, so key order is numeric order (epoch ms and sequence numbers). */
const pad = (n: number): string => String(n).padStart(16, '0');
/** Epoch ms in a window entry's key: fixed-width base 36, so key order is time order. */
const windowTime = (ms: number): string => ms.toString(36).padStart(9, '0');

/** The expiry index entry of `key` (a TTL value) expiring at `expiresAt` (epoch ms). */
const expiryKey = (expiresAt: number, key: string): string => `${EXPIRY_SPACE}${windowTime(expiresAt)}\u0000${key}`;
/** Where the key starts in an expiry index entry: the space, 9 characters of time, a separator. */
const EXPIRY_KEY_AT = EXPIRY_SPACE.length + 10;

/**
 * The length (ms) of the expiry generations of values kept `ttlMs`: SWEEP_MS, doubled while 16
 * of them fit in the TTL, so a TTL spans at most 16 filters whatever its length, and a key
 * stays in its filter at most max(SWEEP_MS, TTL / 8) past its expiry.
 */
function generationWidth(ttlMs: number): number {
  let width = SWEEP_MS;
  while (width * 16 <= ttlMs) width *= 2;
  return width;
}

/** TTL'd keys whose expiry falls in [end - width, end) (epoch ms). */
interface Generation {
  filter: KeyFilter;
  end: number;
  width: number;
}

/** `level` is classic-level on Node, whose compactRange its types leave out. */
type Db = Level<string, string> & { compactRange(start: string, end: string): Promise<void> };
/** A queued write; a put's value may be computed when its batch goes out (counter records: serialized once per batch). */
type Op = { type: 'put'; key: string; value: string | (() => string) } | { type: 'del'; key: string };
type DbOp = { type: 'put'; key: string; value: string } | { type: 'del'; key: string };
/**
 * The key ranges of values and counters: everything but the `\u0001` spaces (windows,
 * buckets, rings), which sort before every printable key.
 */
const VALUE_SPACE = [{ lt: '\u0001' }, { gte: '\u0002' }];
/** A ring's trimming runs once this many values are past its length (one range delete instead of one per push). */
const RING_TRIM_EVERY = 256;

const WRITE = { sync: false };

/** A ring in this process: last sequence number, length, and every seq up to `trimmed` deleted. */
interface RingState {
  seq: number;
  maxLen: number;
  trimmed: number;
}

/** The batch for a group of queued writes: the last write per key, lazy values computed now, '' as EMPTY. */
function coalesce(ops: Op[]): DbOp[] {
  const last = new Map<string, Op>();
  for (const op of ops) last.set(op.key, op);
  const out: DbOp[] = [];
  for (const op of last.values()) {
    if (op.type === 'del' || (typeof op.value === 'string' && op.value !== '')) {
      out.push(op as DbOp);
      continue;
    }
    const value = typeof op.value === 'function' ? op.value() : op.value;
    out.push({ type: 'put', key: op.key, value: value === '' ? EMPTY : value });
  }
  return out;
}

/** A window log in memory and what its on-disk entries need. */
interface Window {
  log: WindowLog;
  /** The longest `windowMs` it was used with (eviction: empty after that long). */
  windowMs: number;
  /** Entries at or before this time (epoch ms) may still be on disk: the next range delete goes up to it. */
  expiredTo: number;
  /** When the last range delete of expired entries was issued (epoch ms). */
  trimmedAt: number;
}

/** A bucket record kept in memory while its bucket is recent (the one being written, and the one before). */
interface CachedBucket {
  start: number;
  bucketMs: number;
  rec: Record<string, number>;
}

/** State shared by every view of one database. */
class Shared {
  readonly db: Db;
  readonly locks = new KeyLocks();
  readonly windows = new IdleMap<string, Window>();
  readonly loading = new Map<string, Promise<Window>>();
  readonly holds = new Map<string, HoldSet>();
  /**
   * Counter records in use. LevelDB admits one process, so this copy is authoritative once
   * loaded: counter reads (budget admission, listings) and updates never read the disk.
   */
  readonly counters = new IdleMap<string, Record<string, number>>();
  idler: NodeJS.Timeout | undefined;
  /** TTL'd keys the sweeper is checking; a `set` takes its key out so the sweeper leaves it alone. */
  readonly sweeping = new Set<string>();
  /**
   * Key filters of the value space: a read of a key none of them has (a cache miss: a new
   * body's hash) answers without a LevelDB lookup. Keys of plain values and counters go in
   * `present`; TTL'd keys in the filter of their expiry generation (`generationWidth`),
   * dropped once that generation has ended, so expired keys are forgotten without a rescan.
   * Filled by `load` and by every put; consulted once `ready`.
   */
  private readonly present = new KeyFilter();
  /** Expiry generations held: a few per TTL in use (at most 16 each), so found by a scan. */
  private generations: Generation[] = [];
  private ready = false;
  private sweepRunning = false;
  /** TTL values deleted since the store was last compacted. */
  private deletedSinceCompaction = 0;
  seq = Math.floor(Math.random() * 2 ** 32);
  sweeper: NodeJS.Timeout | undefined;
  /**
   * Records of recent buckets (authoritative once loaded, as `counters`): a bucket write is
   * then a synchronous add plus one queued put. Buckets two periods old are evicted.
   */
  readonly buckets = new Map<string, CachedBucket>();
  private newestBucket = 0;
  /** Bucket key prefixes written by this process → how long a bucket lives after it starts (pruning). */
  readonly bucketKeys = new Map<string, number>();
  /** Prunes in flight by bucket key prefix (reads wait for them). */
  readonly pruning = new Map<string, Promise<void>>();
  /** Rings: the last sequence number used (loaded from disk on first use). */
  readonly rings = new Map<string, RingState>();
  readonly ringLoading = new Map<string, Promise<RingState>>();
  /** Writes waiting for the next batch, in issue order. */
  private queue: Op[] = [];
  /** The next batch's outcome, shared by every write in it (one promise per batch, not per write). */
  private next: { done: Promise<void>; resolve: () => void; reject: (e: unknown) => void } | undefined;
  /** The batch being written, if any (its outcome; `drain` waits for the last batch, not for an idle queue). */
  private inflight: Promise<void> | undefined;
  /** Values written but not yet in LevelDB (null = deleted), so reads see their own writes; `n` = the write's number. */
  private readonly unwritten = new Map<string, { value: string | (() => string) | null; n: number }>();
  private writes = 0;
  private flushing: Promise<void> | undefined;

  constructor(db: Db) {
    this.db = db;
  }

  /**
   * Queues writes; resolves once they are in LevelDB's log. Writes issued in one event-loop
   * turn, or while a batch is in flight, go out together in the next batch (group commit): under load one batch carries
   * many requests' writes instead of one native write each, and puts to one key in a batch
   * become one (the last: a counter updated by ten requests is written once, serialized
   * once). One batch at a time keeps the order in which writes were issued.
   */
  write(ops: Op[]): Promise<void> {
    for (const op of ops) this.queueOp(op);
    return this.batchDone();
  }

  /** `write` of one op (no array on the hot paths). */
  write1(op: Op): Promise<void> {
    this.queueOp(op);
    return this.batchDone();
  }

  private queueOp(op: Op): void {
    if (op.type === 'put' && op.key.charCodeAt(0) !== 1) {
      // a key whose plain put is still queued went into `present` with that put: the counters
      // written on every request skip the hashing (a queued TTL put is in a generation only)
      const queued = this.unwritten.get(op.key)?.value;
      if (queued == null || (typeof queued === 'string' && queued.charCodeAt(0) === 0)) this.present.add(op.key);
    }
    this.enqueue(op);
  }

  /** Queues a write with no filter bookkeeping. */
  private enqueue(op: Op): void {
    this.queue.push(op);
    this.unwritten.set(op.key, { value: op.type === 'put' ? op.value : null, n: ++this.writes });
  }

  /**
   * Puts a TTL value (`raw`: TTL_MARK envelope) and its expiry index entry; the key goes in
   * its expiry generation's filter, not in `present`.
   */
  putExpiring(key: string, raw: string, expiresAt: number, ttlMs: number): Promise<void> {
    this.generation(expiresAt, ttlMs).add(key);
    this.enqueue({ type: 'put', key, value: raw });
    this.enqueue({ type: 'put', key: expiryKey(expiresAt, key), value: EMPTY });
    return this.batchDone();
  }

  /** The filter of the expiry generation of a value expiring at `expiresAt` after `ttlMs`. */
  private generation(expiresAt: number, ttlMs: number): KeyFilter {
    const width = generationWidth(ttlMs);
    const end = (Math.floor(expiresAt / width) + 1) * width;
    for (const g of this.generations) if (g.end === end && g.width === width) return g.filter;
    // small first part: a generation of a lightly used TTL costs ~1 KB, a busy one grows
    const g = { filter: new KeyFilter(1024), end, width };
    this.generations.push(g);
    return g.filter;
  }

  /** Expiry generation filters held (tests: expired keys are forgotten). */
  get generationCount(): number {
    return this.generations.length;
  }

  /** Drops the filters of generations that ended by `now`: every key in them has expired. */
  private forgetGenerations(now: number): void {
    this.generations = this.generations.filter((g) => g.end > now);
  }

  /** False when `key` (of the value space) is certainly neither on disk nor queued. */
  private mightHave(key: string): boolean {
    const h1 = hash1(key);
    const h2 = hash2(key);
    if (this.present.hasHashed(h1, h2)) return true;
    for (const g of this.generations) if (g.filter.hasHashed(h1, h2)) return true;
    return false;
  }

  private batchDone(): Promise<void> {
    if (!this.next) {
      let resolve!: () => void;
      let reject!: (e: unknown) => void;
      const done = new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      this.next = { done, resolve, reject };
    }
    const done = this.next.done;
    // at the end of this event-loop turn, not the next microtask: a request's writes that
    // trail by a few awaits (a counter behind its lock) and other sockets' writes of the same
    // turn share the batch. One batch call costs ~40 µs of CPU whatever it carries.
    this.flushing ??= new Promise<void>((r) => setImmediate(r)).then(() => this.flush());
    return done;
  }

  /**
   * Resolves when every write queued so far is in LevelDB (or failed: its writer hears of it),
   * before iterating or clearing. It waits for the batch carrying the last of them, not for
   * the queue to go idle: under steady load it never does, and a listing would wait for the
   * load to stop.
   */
  async drain(): Promise<void> {
    const last = this.next?.done ?? this.inflight;
    if (last) await last.catch(() => undefined);
  }

  private async flush(): Promise<void> {
    while (this.next) {
      const ops = this.queue;
      const batch = this.next;
      const upTo = this.writes;
      this.queue = [];
      this.next = undefined;
      try {
        if (ops.length) {
          this.inflight = batch.done;
          await this.db.batch(coalesce(ops), WRITE);
        }
        batch.resolve();
      } catch (err) {
        batch.reject(err);
      }
      for (const op of ops) {
        const u = this.unwritten.get(op.key);
        if (u && u.n <= upTo) this.unwritten.delete(op.key);
      }
    }
    this.flushing = undefined;
    this.inflight = undefined;
  }

  /** Reads a key, seeing queued writes first. */
  async read(key: string): Promise<string | undefined> {
    const u = this.unwritten.get(key);
    if (u) return queuedValue(u.value);
    if (this.ready && key.charCodeAt(0) !== 1 && !this.mightHave(key)) return undefined;
    return this.db.get(key);
  }

  /** The window at `full`, loaded from disk on first use (once, even under concurrent calls). */
  window(full: string, windowMs: number): Window | Promise<Window> {
    const w = this.windows.get(full);
    if (w) {
      if (windowMs > w.windowMs) w.windowMs = windowMs;
      return w;
    }
    let p = this.loading.get(full);
    if (!p) {
      p = (async () => {
        const log = new WindowLog();
        const start = `${WINDOW_SPACE}${full}\u0000`;
        const rows: Array<[number, number]> = [];
        for await (const v of this.db.values({ gte: start, lt: `${start}\uffff` })) {
          const i = v.indexOf(':');
          rows.push([Number(v.slice(0, i)), Number(v.slice(i + 1))]);
        }
        rows.sort((a, b) => a[0] - b[0]);
        for (const [ts, amount] of rows) log.push(ts, amount);
        const w: Window = { log, windowMs, expiredTo: Number.NEGATIVE_INFINITY, trimmedAt: 0 };
        this.windows.set(full, w);
        this.loading.delete(full);
        return w;
      })();
      this.loading.set(full, p);
    }
    return p;
  }

  /**
   * Expires a window's entries at or before `cutoff`; their disk entries go in one range
   * delete now and then (WINDOW_TRIM_MS), not one delete each. A restart before that reads
   * them back and expires them again.
   */
  expire(full: string, w: Window, cutoff: number, now: number): void {
    if (w.log.expire(cutoff) > 0 && cutoff > w.expiredTo) w.expiredTo = cutoff;
    if (w.expiredTo > Number.NEGATIVE_INFINITY && now - w.trimmedAt >= WINDOW_TRIM_MS) this.trimWindow(full, w, now);
  }

  private trimWindow(full: string, w: Window, now: number): void {
    const start = `${WINDOW_SPACE}${full}\u0000`;
    const lt = start + windowTime(Math.max(0, w.expiredTo + 1));
    w.trimmedAt = now;
    w.expiredTo = Number.NEGATIVE_INFINITY;
    // a put still queued for an entry this old lands after the delete: it is expired anyway
    this.db.clear({ gte: start, lt }).catch(() => undefined);
  }

  /** Records a window entry: in memory now, on disk when the promise resolves. */
  addEntry(full: string, w: Window, now: number, amount: number): Promise<void> {
    w.log.push(now, amount);
    const key = `${WINDOW_SPACE}${full}\u0000${windowTime(now)}.${(this.seq++ >>> 0).toString(36)}`;
    return this.write1({ type: 'put', key, value: `${now}:${amount}` });
  }

  /**
   * Drops from memory the counters and windows nobody used for IDLE_MS (a window only once
   * empty; its expired entries then leave the disk too) and the holds that lapsed.
   */
  evictIdle(now = Date.now()): void {
    this.counters.sweep();
    this.windows.sweep((full, w) => {
      w.log.expire(now - w.windowMs);
      if (w.log.size > 0) return true;
      w.expiredTo = now - w.windowMs;
      this.trimWindow(full, w, now);
      return false;
    });
    for (const [key, m] of this.holds) {
      m.expire(now);
      if (m.size === 0) this.holds.delete(key);
    }
  }

  /** Adds deltas to a loaded bucket record and queues its put (no await in between: atomic in this process). */
  bucketAdd(k: string, c: CachedBucket, deltas: Record<string, number>): Promise<void> {
    const rec = c.rec;
    for (const f in deltas) rec[f] = (rec[f] ?? 0) + deltas[f]!;
    if (c.start > this.newestBucket) {
      this.newestBucket = c.start;
      const now = Date.now();
      for (const [key, b] of this.buckets) if (b.start + 2 * b.bucketMs <= now) this.buckets.delete(key);
    }
    return this.write([{ type: 'put', key: k, value: () => JSON.stringify(rec) }]).catch((err) => {
      // the cached record ran ahead of the disk: read it again next time
      this.buckets.delete(k);
      throw err;
    });
  }

  /** Deletes the buckets of `prefix` past their retention (`keepMs` after their start). */
  async pruneBuckets(prefix: string, keepMs: number): Promise<void> {
    const cutoff = Date.now() - keepMs;
    await this.drain();
    await this.db.clear({ gte: prefix, lt: prefix + pad(Math.max(0, cutoff)) });
    for (const [key, b] of this.buckets) if (key.startsWith(prefix) && b.start < cutoff) this.buckets.delete(key);
  }

  /** A ring's state, loaded once: its last sequence number; values beyond `maxLen` left by an earlier process are trimmed. */
  ring(prefix: string, maxLen: number): RingState | Promise<RingState> {
    const r = this.rings.get(prefix);
    if (r) return r;
    let p = this.ringLoading.get(prefix);
    if (!p) {
      p = (async () => {
        let seq = 0;
        for await (const k of this.db.keys({ gte: prefix, lt: `${prefix}\uffff`, reverse: true, limit: 1 })) seq = Number(k.slice(prefix.length));
        if (seq > maxLen) await this.db.clear({ gte: prefix, lt: prefix + pad(seq - maxLen + 1) });
        const state: RingState = { seq, maxLen, trimmed: Math.max(0, seq - maxLen) };
        this.rings.set(prefix, state);
        this.ringLoading.delete(prefix);
        return state;
      })();
      this.ringLoading.set(prefix, p);
    }
    return p;
  }

  /**
   * Reads every value on disk once, at open: fills the key filters, deletes the TTL values
   * that expired while gw was down, and indexes the expiry of the others when the store
   * predates the expiry index. Reads go to LevelDB until it is done.
   */
  async load(): Promise<void> {
    const now = Date.now();
    const indexed = (await this.db.get(EXPIRY_INDEXED)) !== undefined;
    let ops: DbOp[] = [];
    for (const range of VALUE_SPACE) {
      for await (const [k, raw] of this.db.iterator(range)) {
        if (raw.charCodeAt(0) !== 0 || raw === EMPTY) {
          this.present.add(k);
          continue;
        }
        const expiresAt = expiryOf(raw);
        if (expiresAt <= now) {
          ops.push({ type: 'del', key: k });
          this.deletedSinceCompaction++;
        } else {
          this.generation(expiresAt, expiresAt - now).add(k);
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
    this.ready = true;
  }

  /**
   * Deletes buckets past their retention and the TTL values that expired, found through the
   * expiry index (only what expired is read), and forgets the ended expiry generations. A
   * value is re-read before its delete is queued, and a `set` in between takes it out of
   * `sweeping`: a fresh value is never deleted (no lock on `set`). `now` (epoch ms) is for tests.
   */
  async sweep(now = Date.now()): Promise<void> {
    if (this.sweepRunning) return; // the last sweep is still running
    this.sweepRunning = true;
    try {
      for (const [prefix, keepMs] of this.bucketKeys) await this.pruneBuckets(prefix, keepMs);
      const lt = EXPIRY_SPACE + windowTime(now + 1);
      let gt = EXPIRY_SPACE;
      for (;;) {
        const entries = await this.db.keys({ gt, lt, limit: SWEEP_CHUNK }).all();
        if (entries.length === 0) break;
        gt = entries[entries.length - 1]!;
        await this.deleteExpired(entries, now);
      }
      this.forgetGenerations(now);
      // LevelDB frees a deleted value's space only when a compaction merges its tombstone with
      // it, and cache keys are hashes spread over the whole key space: under steady churn the
      // store on disk (and its tables mapped in RSS) kept growing at the write rate. Compacting
      // once the garbage matches the live data keeps it near twice the live size; the cost,
      // rewriting the store, is spread over as many writes as it holds.
      if (this.deletedSinceCompaction >= Math.max(COMPACT_MIN_DELETES, this.liveExpiring(now))) {
        this.deletedSinceCompaction = 0;
        await this.db.compactRange('\u0000', '\uffff');
      }
    } finally {
      this.sweepRunning = false;
    }
  }

  /** Deletes the expiry index `entries` (all expired) and the values they name that are still expired TTL values. */
  private async deleteExpired(entries: string[], now: number): Promise<void> {
    const keys = entries.map((e) => e.slice(EXPIRY_KEY_AT));
    for (const k of keys) this.sweeping.add(k);
    let raws: Array<string | undefined>;
    try {
      raws = await this.db.getMany(keys);
    } catch (err) {
      for (const k of keys) this.sweeping.delete(k);
      throw err;
    }
    // no await from these checks to the queued deletes
    const ops: Op[] = [];
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      // false: set since the read, or a second index entry of the same key in this chunk
      if (this.sweeping.delete(k)) {
        const u = this.unwritten.get(k);
        const raw = u ? queuedValue(u.value) : raws[i];
        // undefined from decode: an expired TTL value (a plain value comes back as is)
        if (raw !== undefined && decode(raw, now) === undefined) ops.push({ type: 'del', key: k });
      }
      ops.push({ type: 'del', key: entries[i]! });
    }
    this.deletedSinceCompaction += ops.length - entries.length;
    for (const op of ops) this.enqueue(op);
    await this.batchDone();
  }

  /**
   * About how many TTL values are live at `now` (after `forgetGenerations`): the keys of the
   * generations still ahead, and of the one under way the share not yet expired (its expiries
   * taken as evenly spread).
   */
  private liveExpiring(now: number): number {
    let n = 0;
    for (const g of this.generations) n += g.filter.count * Math.min(1, (g.end - now) / g.width);
    return n;
  }
}

class LevelView implements Store {
  private s: Shared;
  private prefix: string;
  private root: boolean;

  constructor(s: Shared, prefix: string, root: boolean) {
    this.s = s;
    this.prefix = prefix;
    this.root = root;
  }

  namespace(ns: string): Store {
    return new LevelView(this.s, `${this.prefix}${ns}:`, false);
  }

  async get(key: string): Promise<string | undefined> {
    const raw = await this.s.read(this.prefix + key);
    if (raw === undefined) return undefined;
    return decode(raw, Date.now());
  }

  set(key: string, value: string, opts?: { ttlMs?: number }): Promise<void> {
    const full = this.prefix + key;
    const s = this.s;
    s.counters.delete(full);
    if (s.sweeping.size > 0) s.sweeping.delete(full);
    if (!opts?.ttlMs) return s.write1({ type: 'put', key: full, value });
    const expiresAt = Date.now() + opts.ttlMs;
    return s.putExpiring(full, `${TTL_MARK}${expiresAt}${TTL_MARK}${value}`, expiresAt, opts.ttlMs);
  }

  async delete(key: string): Promise<void> {
    this.s.counters.delete(this.prefix + key);
    await this.s.write1({ type: 'del', key: this.prefix + key });
  }

  async *entries(prefix = ''): AsyncIterable<[string, string]> {
    const start = this.prefix + prefix;
    const now = Date.now();
    await this.s.drain();
    for await (const [k, raw] of this.s.db.iterator({ gte: start, lt: `${start}\uffff` })) {
      if (k.charCodeAt(0) === 1) continue; // window entries (only reachable from the root view)
      const v = decode(raw, now);
      if (v !== undefined) yield [k.slice(this.prefix.length), v];
    }
  }

  async clear(prefix = ''): Promise<void> {
    const start = this.prefix + prefix;
    for (const k of this.s.counters.keys()) if (k.startsWith(start)) this.s.counters.delete(k);
    await this.s.drain();
    if (start !== '') await this.s.db.clear({ gte: start, lt: `${start}\uffff` });
    else for (const range of [...VALUE_SPACE, { gte: EXPIRY_SPACE, lt: `${EXPIRY_SPACE}\uffff` }]) await this.s.db.clear(range);
  }

  async incr(key: string, deltas: Record<string, number>): Promise<Record<string, number>> {
    const full = this.prefix + key;
    const r = this.record(full);
    return this.add(full, r instanceof Promise ? await r : r, deltas);
  }

  async counters(key: string): Promise<Record<string, number>> {
    const r = this.record(this.prefix + key);
    return { ...(r instanceof Promise ? await r : r) };
  }

  async windowAdmit(key: string, limit: number, windowMs: number, opts: { cost?: number; pending?: number; now?: number } = {}): Promise<WindowVerdict> {
    const full = this.prefix + key;
    const now = opts.now ?? Date.now();
    const pending = opts.pending ?? 0;
    const s = this.s;
    const l = s.window(full, windowMs);
    const w = l instanceof Promise ? await l : l;
    // from here to the push in addEntry() nothing awaits: check-and-record is atomic in this process
    s.expire(full, w, now - windowMs, now);
    const total = w.log.total;
    if (total + pending >= limit) return { admitted: false, total, retryAfterMs: w.log.retryAfter(limit, pending, now, windowMs) };
    const cost = opts.cost ?? 1;
    if (cost !== 0) await s.addEntry(full, w, now, cost);
    return { admitted: true, total, retryAfterMs: 0 };
  }

  async windowAdd(key: string, amount: number, windowMs: number, now = Date.now()): Promise<void> {
    const full = this.prefix + key;
    const s = this.s;
    const l = s.window(full, windowMs);
    const w = l instanceof Promise ? await l : l;
    s.expire(full, w, now - windowMs, now);
    if (amount !== 0) await s.addEntry(full, w, now, amount);
  }

  async hold(key: string, id: string, amount: number, opts: HoldOptions): Promise<HoldVerdict> {
    const full = this.prefix + key;
    const r = this.record(full);
    // from the loaded record to the hold nothing awaits: check-and-hold is atomic in this process
    const value = (r instanceof Promise ? await r : r)[opts.field] ?? 0;
    const held = this.liveHolds(full, id);
    const admitted = holdAdmits(value, held, amount, opts);
    if (admitted) {
      let m = this.s.holds.get(full);
      if (!m) this.s.holds.set(full, (m = new HoldSet()));
      m.add(id, amount, Date.now() + opts.ttlMs);
    }
    return { admitted, value, held };
  }

  async settle(key: string, id: string, deltas: Record<string, number>): Promise<Record<string, number>> {
    const full = this.prefix + key;
    const r = this.record(full);
    const rec = r instanceof Promise ? await r : r;
    // the spend is in the record before the hold goes: never counted zero times
    const out = this.add(full, rec, deltas);
    this.drop(full, id);
    return out;
  }

  async release(key: string, id: string): Promise<void> {
    this.drop(this.prefix + key, id);
  }

  async held(key: string): Promise<number> {
    return this.liveHolds(this.prefix + key, undefined);
  }

  bucketIncr(key: string, at: number, series: string, deltas: Record<string, number>, opts: { bucketMs: number; retentionMs: number }): Promise<void> {
    const s = this.s;
    const prefix = `${BUCKET_SPACE}${this.prefix}${key}\u0000`;
    if (!s.bucketKeys.has(prefix)) {
      // first write of this process: drop what outlived its retention while gw was down
      s.bucketKeys.set(prefix, opts.bucketMs + opts.retentionMs);
      const p = s
        .pruneBuckets(prefix, opts.bucketMs + opts.retentionMs)
        .catch(() => undefined)
        .finally(() => s.pruning.delete(prefix));
      s.pruning.set(prefix, p);
    }
    const start = at - (at % opts.bucketMs);
    const k = `${prefix}${pad(start)}\u0000${series}`;
    const cached = s.buckets.get(k);
    if (cached) return s.bucketAdd(k, cached, deltas);
    // first use of this bucket: load it once, even under concurrent calls
    return s.locks.run(k, async () => {
      let c = s.buckets.get(k);
      if (!c) {
        const raw = await s.read(k);
        c = { start, bucketMs: opts.bucketMs, rec: raw === undefined ? {} : JSON.parse(raw) };
        s.buckets.set(k, c);
      }
      return s.bucketAdd(k, c, deltas);
    });
  }

  async *buckets(key: string, from: number, to: number): AsyncIterable<BucketRow> {
    const prefix = `${BUCKET_SPACE}${this.prefix}${key}\u0000`;
    if (!(to > from)) return;
    await this.s.pruning.get(prefix);
    await this.s.drain();
    for await (const [k, v] of this.s.db.iterator({ gte: prefix + pad(Math.max(0, from)), lt: prefix + pad(Math.max(0, to)) })) {
      const rest = k.slice(prefix.length);
      yield { start: Number(rest.slice(0, 16)), series: rest.slice(17), counters: JSON.parse(v) as Record<string, number> };
    }
  }

  async ringPush(key: string, value: string, maxLen: number): Promise<number> {
    const prefix = `${RING_SPACE}${this.prefix}${key}\u0000`;
    const r = this.s.ring(prefix, maxLen);
    const state = r instanceof Promise ? await r : r;
    // from here to write() nothing awaits: the sequence number is atomic in this process
    const seq = ++state.seq;
    const done = this.s.write([{ type: 'put', key: prefix + pad(seq), value }]);
    if (seq - maxLen - state.trimmed >= RING_TRIM_EVERY) {
      // values past the length go in one range delete now and then; reads skip them meanwhile
      state.trimmed = seq - maxLen;
      void done.then(() => this.s.db.clear({ gte: prefix, lt: prefix + pad(state.trimmed + 1) })).catch(() => undefined);
    }
    await done;
    return seq;
  }

  async *ringRead(key: string, opts: { limit?: number; before?: number } = {}): AsyncIterable<[number, string]> {
    const prefix = `${RING_SPACE}${this.prefix}${key}\u0000`;
    const limit = opts.limit ?? Infinity;
    if (!(limit > 0)) return;
    await this.s.drain();
    const lt = opts.before === undefined ? `${prefix}\uffff` : prefix + pad(Math.max(0, opts.before));
    // values past the ring's length that are not trimmed yet are not part of it
    const state = this.s.rings.get(prefix);
    const gte = state ? prefix + pad(Math.max(0, state.seq - state.maxLen + 1)) : prefix;
    const it = this.s.db.iterator({ gte, lt, reverse: true, limit: Number.isFinite(limit) ? limit : -1 });
    for await (const [k, v] of it) yield [Number(k.slice(prefix.length)), v === EMPTY ? '' : v];
  }

  withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
    return this.s.locks.run(`lock:${this.prefix}${key}`, fn);
  }

  async close(): Promise<void> {
    if (!this.root) return;
    await this.s.drain();
    if (this.s.sweeper) clearInterval(this.s.sweeper);
    if (this.s.idler) clearInterval(this.s.idler);
    await this.s.db.close();
  }

  /** Sizes of the in-memory state (tests: memory stays bounded). */
  memory(): { counters: number; windows: number; holds: number; generations: number } {
    return { counters: this.s.counters.size, windows: this.s.windows.size, holds: this.s.holds.size, generations: this.s.generationCount };
  }

  /** Runs the idle eviction now (tests; it runs every IDLE_MS by itself). */
  evictIdle(now?: number): void {
    this.s.evictIdle(now);
  }

  /**
   * Adds `deltas` to the loaded record `rec` of `full` (synchronously: atomic in this
   * process) and resolves with a copy once the record is on disk. A failed write drops the
   * copy in memory, so the next use reads the disk's record: the update is as if never made.
   */
  private add(full: string, rec: Record<string, number>, deltas: Record<string, number>): Promise<Record<string, number>> {
    for (const f in deltas) rec[f] = (rec[f] ?? 0) + deltas[f]!;
    const out = { ...rec };
    const s = this.s;
    return s.write1({ type: 'put', key: full, value: () => JSON.stringify(rec) }).then(
      () => out,
      (err) => {
        if (s.counters.get(full) === rec) s.counters.delete(full);
        throw err;
      },
    );
  }

  /**
   * The counter record at `full` (shared and mutable: callers copy before returning it),
   * synchronously when in memory; else loaded once, even under concurrent calls.
   */
  private record(full: string): Record<string, number> | Promise<Record<string, number>> {
    const cached = this.s.counters.get(full);
    if (cached) return cached;
    return this.s.locks.run(full, async () => {
      const again = this.s.counters.get(full);
      if (again) return again;
      const raw = await this.s.read(full);
      // another path may have loaded it while we read: that copy is the live one
      const now = this.s.counters.get(full);
      if (now) return now;
      const rec: Record<string, number> = raw === undefined ? {} : JSON.parse(raw);
      this.s.counters.set(full, rec);
      return rec;
    });
  }

  /** Sum of the unexpired holds on `full` other than `except`; expired ones are dropped. */
  private liveHolds(full: string, except: string | undefined): number {
    const m = this.s.holds.get(full);
    if (!m) return 0;
    const sum = m.live(Date.now(), except);
    if (m.size === 0) this.s.holds.delete(full);
    return sum;
  }

  private drop(full: string, id: string): void {
    const m = this.s.holds.get(full);
    if (!m) return;
    m.delete(id);
    if (m.size === 0) this.s.holds.delete(full);
  }
}

/** A queued write's value as a read sees it: a counter record serialized, a delete as undefined. */
function queuedValue(value: string | (() => string) | null): string | undefined {
  return typeof value === 'function' ? value() : (value ?? undefined);
}

/**
 * The expiry (epoch ms) of a TTL value's envelope, `\0<expiresAt>\0<value>` (the caller checked
 * the leading mark); `end` is where the second mark is.
 */
function expiryOf(raw: string, end = raw.indexOf(TTL_MARK, 1)): number {
  return Number(raw.slice(1, end));
}

/** A value as read from disk: EMPTY as '', a TTL value's own value or undefined once expired. */
function decode(raw: string, now: number): string | undefined {
  if (raw.charCodeAt(0) !== 0) return raw;
  if (raw.length === 1) return '';
  const end = raw.indexOf(TTL_MARK, 1);
  return expiryOf(raw, end) > now ? raw.slice(end + 1) : undefined;
}

/**
 * Opens (creating if needed) the LevelDB store at `dir`, deletes expired TTL values, and
 * keeps deleting them every minute (SWEEP_MS).
 * @throws when another process holds the database (LevelDB's LOCK file).
 */
export async function openLevelStore(dir: string): Promise<Store> {
  const db = new Level<string, string>(dir, { keyEncoding: 'utf8', valueEncoding: 'utf8' }) as Db;
  try {
    await db.open();
  } catch (err) {
    const cause = (err as { cause?: Error }).cause;
    throw new UserError(`cannot open the store at ${dir}: ${cause?.message ?? (err as Error).message}`, { cause: err });
  }
  const shared = new Shared(db);
  await shared.load();
  shared.sweeper = setInterval(() => {
    shared.sweep().catch(() => undefined);
  }, SWEEP_MS);
  shared.sweeper.unref();
  shared.idler = setInterval(() => shared.evictIdle(), IDLE_MS);
  shared.idler.unref();
  return new LevelView(shared, '', true);
}
