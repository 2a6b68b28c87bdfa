/**
 * The embedded store: LevelDB (`level`) under `data_dir`. One process owns the database
 * (LevelDB takes a file lock), so atomicity is in-process: a per-key lock for
 * read-check-write sequences, and plain single-threaded JS for the in-memory window logs.
 * Counters and plain values use synchronous writes (`sync: true`: on disk when the promise
 * resolves); TTL entries (caches) do not;
 * window entries use ordinary writes (in LevelDB's log when it resolves, so a process
 * crash keeps them; only a machine crash may lose the last ones).
 */
import { Level } from 'level';
import type { HoldVerdict, Store, WindowVerdict } from './types.ts';
import { WindowLog } from './window-log.ts';

/** TTL entries are stored as `\u0000<expiresAtMs>\u0000<value>` so plain values need no envelope. */
const TTL_MARK = '\u0000';
/** Window entries live outside every namespace's key range: `\u0001w\u0000<ns key>\u0000<seq>`. */
const WINDOW_SPACE = '\u0001w\u0000';
/** How often expired TTL values are deleted from disk (they are invisible as soon as they expire). */
const SWEEP_MS = 10 * 60_000;

type Db = Level<string, string>;

class KeyLocks {
  private tails = new Map<string, Promise<unknown>>();

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => { release = r; });
    const tail = prev.then(() => mine);
    this.tails.set(key, tail);
    try {
      await prev;
      return await fn();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}

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
  seq = Math.floor(Math.random() * 2 ** 32);
  sweeper: NodeJS.Timeout | undefined;

  constructor(db: Db) {
    this.db = db;
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
    const ops: Array<{ type: 'put'; key: string; value: string } | { type: 'del'; key: string }> = [];
    for (const key of dropped) ops.push({ type: 'del', key });
    if (amount !== 0) {
      const key = `${WINDOW_SPACE}${full}\u0000${now.toString(36).padStart(9, '0')}.${(this.seq++ >>> 0).toString(36)}`;
      log.push(now, amount, key);
      ops.push({ type: 'put', key, value: `${now}:${amount}` });
    }
    return ops.length ? this.db.batch(ops) : Promise.resolve();
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
        const raw = await this.db.get(k);
        if (raw !== undefined && raw.charCodeAt(0) === 0 && decode(raw, Date.now()) === undefined) await this.db.del(k);
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
    const raw = await this.s.db.get(this.prefix + key);
    if (raw === undefined) return undefined;
    return decode(raw, Date.now());
  }

  async set(key: string, value: string, opts?: { ttlMs?: number }): Promise<void> {
    const full = this.prefix + key;
    if (!opts?.ttlMs) return this.s.db.put(full, value, { sync: true });
    // TTL'd writes take the key's lock so the sweeper never deletes one it just read as expired.
    // Not fsynced: TTL entries are caches; LevelDB's log still keeps them across a process crash.
    const raw = `${TTL_MARK}${Date.now() + opts.ttlMs}${TTL_MARK}${value}`;
    return this.s.locks.run(full, () => this.s.db.put(full, raw));
  }

  async delete(key: string): Promise<void> {
    await this.s.db.del(this.prefix + key, { sync: true });
  }

  async *entries(prefix = ''): AsyncIterable<[string, string]> {
    const start = this.prefix + prefix;
    const now = Date.now();
    for await (const [k, raw] of this.s.db.iterator({ gte: start, lt: `${start}\uffff` })) {
      if (k.charCodeAt(0) === 1) continue; // window entries (only reachable from the root view)
      const v = decode(raw, now);
      if (v !== undefined) yield [k.slice(this.prefix.length), v];
    }
  }

  async clear(prefix = ''): Promise<void> {
    const start = this.prefix + prefix;
    await this.s.db.clear({ gte: start, lt: start === '' ? '\u0001' : `${start}\uffff` });
  }

  incr(key: string, deltas: Record<string, number>): Promise<Record<string, number>> {
    const full = this.prefix + key;
    return this.s.locks.run(full, () => this.add(full, deltas));
  }

  async counters(key: string): Promise<Record<string, number>> {
    const raw = await this.s.db.get(this.prefix + key);
    return raw === undefined ? {} : JSON.parse(raw);
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
      const raw = await this.s.db.get(full);
      const value = raw === undefined ? 0 : ((JSON.parse(raw) as Record<string, number>)[opts.field] ?? 0);
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
    if (this.s.sweeper) clearInterval(this.s.sweeper);
    await this.s.db.close();
  }

  /** Read-add-write of a counter record; the caller holds the key's lock. */
  private async add(full: string, deltas: Record<string, number>): Promise<Record<string, number>> {
    const raw = await this.s.db.get(full);
    const rec: Record<string, number> = raw === undefined ? {} : JSON.parse(raw);
    for (const f in deltas) rec[f] = (rec[f] ?? 0) + deltas[f]!;
    await this.s.db.put(full, JSON.stringify(rec), { sync: true });
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
    throw new Error(`cannot open the store at ${dir}: ${cause?.message ?? (err as Error).message}`, { cause: err });
  }
  const shared = new Shared(db);
  await shared.sweep();
  shared.sweeper = setInterval(() => {
    shared.sweep().catch(() => undefined);
  }, SWEEP_MS);
  shared.sweeper.unref();
  return new LevelView(shared, '', true);
}
