/**
 * The embedded store: LevelDB (`level`) under `data_dir`. One process owns the database
 * (LevelDB takes a file lock), so atomicity is in-process: a per-key lock for
 * read-check-write sequences, and plain single-threaded JS for the in-memory window logs.
 * Every write is in LevelDB's write-ahead log, in the operating system's hands, when its
 * promise resolves: it survives a process crash (kill -9) and a restart. Writes are not
 * fsynced one by one (`sync: false`): an fsync per request cost more than everything
 * else gw does for it, and only a machine crash or power loss could drop the last
 * moments of writes (for that, run the Redis store with `appendfsync always`).
 */
import { Level } from 'level';
import { UserError } from '../errors.ts';
import type { HoldVerdict, Store, WindowVerdict } from './types.ts';
import { WindowLog } from './window-log.ts';
import { KeyLocks } from './key-locks.ts';

/** TTL entries are stored as `\u0000<expiresAtMs>\u0000<value>` so plain values need no envelope. */
const TTL_MARK = '\u0000';
/** Window entries live outside every namespace's key range: `\u0001w\u0000<ns key>\u0000<seq>`. */
const WINDOW_SPACE = '\u0001w\u0000';
/** How often expired TTL values are deleted from disk (they are invisible as soon as they expire). */
const SWEEP_MS = 10 * 60_000;

type Db = Level<string, string>;
type Op = { type: 'put'; key: string; value: string } | { type: 'del'; key: string };

const WRITE = { sync: false };

interface Hold {
  amount: number;
  expiresAt: number;
}

/** State shared by every view of one database. */
class Shared {
  readonly db: Db;
  readonly locks = new KeyLocks();
  readonly windows = new Map<string, WindowLog>();
  readonly loading = new Map<string, Promise<WindowLog>>();
  readonly holds = new Map<string, Map<string, Hold>>();
  /**
   * Counter records read or written so far. LevelDB admits one process, so this copy is
   * authoritative once loaded: counter reads (budget admission, listings) never touch disk.
   */
  readonly counters = new Map<string, Record<string, number>>();
  seq = Math.floor(Math.random() * 2 ** 32);
  sweeper: NodeJS.Timeout | undefined;
  /** Writes waiting for the next batch, in issue order, and their waiters. */
  private queue: Op[] = [];
  private waiters: Array<{ resolve: () => void; reject: (e: unknown) => void }> = [];
  /** Values written but not yet in LevelDB (null = deleted), so reads see their own writes; `n` = the write's number. */
  private readonly unwritten = new Map<string, { value: string | null; n: number }>();
  private writes = 0;
  private flushing: Promise<void> | undefined;

  constructor(db: Db) {
    this.db = db;
  }

  /**
   * Queues writes; resolves once they are in LevelDB's log. Writes issued while a batch is
   * in flight go out together in the next one (group commit): under load one batch carries
   * many requests' writes instead of one native write each. One batch at a time keeps the
   * order in which writes were issued.
   */
  write(ops: Op[]): Promise<void> {
    for (const op of ops) {
      this.queue.push(op);
      this.unwritten.set(op.key, { value: op.type === 'put' ? op.value : null, n: ++this.writes });
    }
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    this.flushing ??= Promise.resolve().then(() => this.flush());
    return done;
  }

  /** Resolves when every queued write is in LevelDB (before iterating or clearing). */
  async drain(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  private async flush(): Promise<void> {
    while (this.waiters.length) {
      const ops = this.queue;
      const waiters = this.waiters;
      const upTo = this.writes;
      this.queue = [];
      this.waiters = [];
      try {
        if (ops.length) await this.db.batch(ops, WRITE);
        for (const w of waiters) w.resolve();
      } catch (err) {
        for (const w of waiters) w.reject(err);
      }
      for (const op of ops) {
        const u = this.unwritten.get(op.key);
        if (u && u.n <= upTo) this.unwritten.delete(op.key);
      }
    }
    this.flushing = undefined;
  }

  /** Reads a key, seeing queued writes first. */
  async read(key: string): Promise<string | undefined> {
    const u = this.unwritten.get(key);
    if (u) return u.value ?? undefined;
    return this.db.get(key);
  }

  /** The window log at `full`, loaded from disk on first use (once, even under concurrent calls). */
  window(full: string): WindowLog | Promise<WindowLog> {
    const w = this.windows.get(full);
    if (w) return w;
    let p = this.loading.get(full);
    if (!p) {
      p = (async () => {
        const log = new WindowLog();
        const start = `${WINDOW_SPACE}${full}\u0000`;
        const rows: Array<[number, number, string]> = [];
        for await (const [k, v] of this.db.iterator({ gte: start, lt: `${start}\uffff` })) {
          const i = v.indexOf(':');
          rows.push([Number(v.slice(0, i)), Number(v.slice(i + 1)), k]);
        }
        rows.sort((a, b) => a[0] - b[0]);
        for (const [ts, amount, id] of rows) log.push(ts, amount, id);
        this.windows.set(full, log);
        this.loading.delete(full);
        return log;
      })();
      this.loading.set(full, p);
    }
    return p;
  }

  /** Persists a new window entry and deletes the ones that left the window, in one batch. */
  persist(full: string, log: WindowLog, dropped: string[], now: number, amount: number): Promise<void> {
    const ops: Op[] = [];
    for (const key of dropped) ops.push({ type: 'del', key });
    if (amount !== 0) {
      const key = `${WINDOW_SPACE}${full}\u0000${now.toString(36).padStart(9, '0')}.${(this.seq++ >>> 0).toString(36)}`;
      log.push(now, amount, key);
      ops.push({ type: 'put', key, value: `${now}:${amount}` });
    }
    return ops.length ? this.write(ops) : Promise.resolve();
  }

  /** Deletes expired TTL values; under each key's lock so a fresh `set` is never deleted. */
  async sweep(): Promise<void> {
    const now = Date.now();
    const expired: string[] = [];
    for await (const [k, raw] of this.db.iterator({ lt: '\u0001' })) {
      if (raw.charCodeAt(0) === 0 && decode(raw, now) === undefined) expired.push(k);
    }
    for (const k of expired) {
      await this.locks.run(k, async () => {
        const raw = await this.read(k);
        if (raw !== undefined && raw.charCodeAt(0) === 0 && decode(raw, Date.now()) === undefined) await this.write([{ type: 'del', key: k }]);
      });
    }
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

  async set(key: string, value: string, opts?: { ttlMs?: number }): Promise<void> {
    const full = this.prefix + key;
    this.s.counters.delete(full);
    if (!opts?.ttlMs) return this.s.write([{ type: 'put', key: full, value }]);
    // TTL'd writes take the key's lock so the sweeper never deletes one it just read as expired.
    // Not fsynced: TTL entries are caches; LevelDB's log still keeps them across a process crash.
    const raw = `${TTL_MARK}${Date.now() + opts.ttlMs}${TTL_MARK}${value}`;
    return this.s.locks.run(full, () => this.s.write([{ type: 'put', key: full, value: raw }]));
  }

  async delete(key: string): Promise<void> {
    this.s.counters.delete(this.prefix + key);
    await this.s.write([{ type: 'del', key: this.prefix + key }]);
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
    await this.s.db.clear({ gte: start, lt: start === '' ? '\u0001' : `${start}\uffff` });
  }

  incr(key: string, deltas: Record<string, number>): Promise<Record<string, number>> {
    const full = this.prefix + key;
    return this.s.locks.run(full, () => this.add(full, deltas));
  }

  async counters(key: string): Promise<Record<string, number>> {
    return { ...(await this.record(this.prefix + key)) };
  }

  async windowAdmit(key: string, limit: number, windowMs: number, opts: { cost?: number; pending?: number; now?: number } = {}): Promise<WindowVerdict> {
    const full = this.prefix + key;
    const now = opts.now ?? Date.now();
    const pending = opts.pending ?? 0;
    const w = this.s.window(full);
    const log = w instanceof WindowLog ? w : await w;
    // from here to the push in persist() nothing awaits: check-and-record is atomic in this process
    const dropped = log.expire(now - windowMs);
    const total = log.total;
    if (total + pending >= limit) {
      if (dropped.length) await this.s.persist(full, log, dropped, now, 0);
      return { admitted: false, total, retryAfterMs: log.retryAfter(limit, pending, now, windowMs) };
    }
    await this.s.persist(full, log, dropped, now, opts.cost ?? 1);
    return { admitted: true, total, retryAfterMs: 0 };
  }

  async windowAdd(key: string, amount: number, windowMs: number, now = Date.now()): Promise<void> {
    const full = this.prefix + key;
    const w = this.s.window(full);
    const log = w instanceof WindowLog ? w : await w;
    await this.s.persist(full, log, log.expire(now - windowMs), now, amount);
  }

  hold(key: string, id: string, amount: number, opts: { field: string; limit: number; ttlMs: number }): Promise<HoldVerdict> {
    const full = this.prefix + key;
    return this.s.locks.run(full, async () => {
      const value = (await this.record(full))[opts.field] ?? 0;
      const held = this.liveHolds(full, id);
      const admitted = value + held < opts.limit;
      if (admitted) {
        let m = this.s.holds.get(full);
        if (!m) this.s.holds.set(full, (m = new Map()));
        m.set(id, { amount, expiresAt: Date.now() + opts.ttlMs });
      }
      return { admitted, value, held };
    });
  }

  settle(key: string, id: string, deltas: Record<string, number>): Promise<Record<string, number>> {
    const full = this.prefix + key;
    return this.s.locks.run(full, async () => {
      const rec = await this.add(full, deltas);
      this.drop(full, id);
      return rec;
    });
  }

  async release(key: string, id: string): Promise<void> {
    this.drop(this.prefix + key, id);
  }

  async held(key: string): Promise<number> {
    return this.liveHolds(this.prefix + key, undefined);
  }

  withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
    return this.s.locks.run(`lock:${this.prefix}${key}`, fn);
  }

  async close(): Promise<void> {
    if (!this.root) return;
    await this.s.drain();
    if (this.s.sweeper) clearInterval(this.s.sweeper);
    await this.s.db.close();
  }

  /** Read-add-write of a counter record; the caller holds the key's lock. */
  private async add(full: string, deltas: Record<string, number>): Promise<Record<string, number>> {
    const rec = { ...(await this.record(full)) };
    for (const f in deltas) rec[f] = (rec[f] ?? 0) + deltas[f]!;
    await this.s.write([{ type: 'put', key: full, value: JSON.stringify(rec) }]);
    // only once durable: a failed write leaves the old record in force
    this.s.counters.set(full, rec);
    return { ...rec };
  }

  /** The counter record at `full` (shared: callers copy before changing or returning it). */
  private async record(full: string): Promise<Record<string, number>> {
    const cached = this.s.counters.get(full);
    if (cached) return cached;
    const raw = await this.s.read(full);
    const rec: Record<string, number> = raw === undefined ? {} : JSON.parse(raw);
    // a write may have landed while we read: it wins
    const now = this.s.counters.get(full);
    if (now) return now;
    this.s.counters.set(full, rec);
    return rec;
  }

  /** Sum of the unexpired holds on `full` other than `except`; expired ones are dropped. */
  private liveHolds(full: string, except: string | undefined): number {
    const m = this.s.holds.get(full);
    if (!m) return 0;
    const now = Date.now();
    let sum = 0;
    for (const [id, h] of m) {
      if (h.expiresAt <= now) m.delete(id);
      else if (id !== except) sum += h.amount;
    }
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

function decode(raw: string, now: number): string | undefined {
  if (raw.charCodeAt(0) !== 0) return raw;
  const end = raw.indexOf(TTL_MARK, 1);
  const expires = Number(raw.slice(1, end));
  return expires > now ? raw.slice(end + 1) : undefined;
}

/**
 * Opens (creating if needed) the LevelDB store at `dir`, deletes expired TTL values, and
 * keeps deleting them every 10 minutes.
 * @throws when another process holds the database (LevelDB's LOCK file).
 */
export async function openLevelStore(dir: string): Promise<Store> {
  const db: Db = new Level<string, string>(dir, { keyEncoding: 'utf8', valueEncoding: 'utf8' });
  try {
    await db.open();
  } catch (err) {
    const cause = (err as { cause?: Error }).cause;
    throw new UserError(`cannot open the store at ${dir}: ${cause?.message ?? (err as Error).message}`, { cause: err });
  }
  const shared = new Shared(db);
  await shared.sweep();
  shared.sweeper = setInterval(() => {
    shared.sweep().catch(() => undefined);
  }, SWEEP_MS);
  shared.sweeper.unref();
  return new LevelView(shared, '', true);
}
