/**
 * The embedded store: LevelDB (`level`) under `data_dir`. One process owns the database
 * (LevelDB takes a file lock), so atomicity is an in-process per-key lock and durability
 * is a synchronous write (`sync: true`) for every update that counts (usage, spend).
 */
import { Level } from 'level';
import type { Store } from './types.ts';

/** TTL entries are stored as `\u0000<expiresAtMs>\u0000<value>` so plain values need no envelope. */
const TTL_MARK = '\u0000';

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

class LevelView implements Store {
  private db: Db;
  private prefix: string;
  private locks: KeyLocks;
  private root: boolean;

  constructor(db: Db, prefix: string, locks: KeyLocks, root: boolean) {
    this.db = db;
    this.prefix = prefix;
    this.locks = locks;
    this.root = root;
  }

  namespace(ns: string): Store {
    return new LevelView(this.db, `${this.prefix}${ns}:`, this.locks, false);
  }

  async get(key: string): Promise<string | undefined> {
    const raw = await this.db.get(this.prefix + key);
    if (raw === undefined) return undefined;
    return decode(raw, Date.now());
  }

  async set(key: string, value: string, opts?: { ttlMs?: number }): Promise<void> {
    const raw = opts?.ttlMs ? `${TTL_MARK}${Date.now() + opts.ttlMs}${TTL_MARK}${value}` : value;
    await this.db.put(this.prefix + key, raw, { sync: true });
  }

  async delete(key: string): Promise<void> {
    await this.db.del(this.prefix + key, { sync: true });
  }

  async *entries(prefix = ''): AsyncIterable<[string, string]> {
    const start = this.prefix + prefix;
    const now = Date.now();
    for await (const [k, raw] of this.db.iterator({ gte: start, lt: `${start}\uffff` })) {
      const v = decode(raw, now);
      if (v !== undefined) yield [k.slice(this.prefix.length), v];
    }
  }

  async clear(prefix = ''): Promise<void> {
    const start = this.prefix + prefix;
    await this.db.clear({ gte: start, lt: `${start}\uffff` });
  }

  incr(key: string, deltas: Record<string, number>): Promise<Record<string, number>> {
    const full = this.prefix + key;
    return this.locks.run(full, async () => {
      const raw = await this.db.get(full);
      const rec: Record<string, number> = raw === undefined ? {} : JSON.parse(raw);
      for (const [f, d] of Object.entries(deltas)) rec[f] = (rec[f] ?? 0) + d;
      await this.db.put(full, JSON.stringify(rec), { sync: true });
      return rec;
    });
  }

  async counters(key: string): Promise<Record<string, number>> {
    const raw = await this.db.get(this.prefix + key);
    return raw === undefined ? {} : JSON.parse(raw);
  }

  withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
    return this.locks.run(`lock:${this.prefix}${key}`, fn);
  }

  async close(): Promise<void> {
    if (this.root) await this.db.close();
  }
}

function decode(raw: string, now: number): string | undefined {
  if (raw.charCodeAt(0) !== 0) return raw;
  const end = raw.indexOf(TTL_MARK, 1);
  const expires = Number(raw.slice(1, end));
  return expires > now ? raw.slice(end + 1) : undefined;
}

/**
 * Opens (creating if needed) the LevelDB store at `dir`.
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
  return new LevelView(db, '', new KeyLocks(), true);
}
