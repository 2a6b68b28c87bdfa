/**
 * Write coalescing (group commit) for the LevelDB store: every write of every part goes
 * through one queue, and a read sees the writes still queued (read-your-writes).
 */
import type { Level } from 'level';
import { EMPTY } from './layout.ts';

/** `level` is classic-level on Node, whose compactRange its types leave out. */
export type Db = Level<string, string> & { compactRange(start: string, end: string): Promise<void> };
/** A queued write's value, as `unwritten` keeps it: a put's value (lazy or not), or null for a delete. */
export type QueuedValue = string | (() => string) | null;
/** A queued write; a put's value may be computed when its batch goes out (counter records: serialized once per batch). */
export type Op = { type: 'put'; key: string; value: string | (() => string) } | { type: 'del'; key: string };
/** A write as LevelDB takes it. */
export type DbOp = { type: 'put'; key: string; value: string } | { type: 'del'; key: string };

/** Writes are not fsynced one by one (level.ts). */
export const WRITE = { sync: false };

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

/** A queued write's value as a read sees it: a counter record serialized, a delete as undefined. */
export function queuedValue(value: QueuedValue): string | undefined {
  return typeof value === 'function' ? value() : (value ?? undefined);
}

/**
 * Queues writes, each resolved once in LevelDB's log: a turn's writes go out in one batch (group
 * commit), puts to one key become the last, one batch at a time keeps their order.
 */
export class WriteQueue {
  private readonly db: Db;
  /** Writes waiting for the next batch, in issue order. */
  private queue: Op[] = [];
  /** The next batch's outcome, shared by every write in it (one promise per batch, not per write). */
  private next: { done: Promise<void>; resolve: () => void; reject: (e: unknown) => void } | undefined;
  /** The batch being written, if any (its outcome; `drain` waits for the last batch, not for an idle queue). */
  private inflight: Promise<void> | undefined;
  /** Values written but not yet in LevelDB (null = deleted), so reads see their own writes; `n` = the write's number. */
  private readonly unwritten = new Map<string, { value: QueuedValue; n: number }>();
  private writes = 0;
  private flushing: Promise<void> | undefined;

  constructor(db: Db) {
    this.db = db;
  }

  /** Queues a write; `done()` is the outcome of the batch it goes in. */
  enqueue(op: Op): void {
    this.queue.push(op);
    this.unwritten.set(op.key, { value: op.type === 'put' ? op.value : null, n: ++this.writes });
  }

  /** Queues one write and resolves once it is in LevelDB's log. */
  write(op: Op): Promise<void> {
    this.enqueue(op);
    return this.done();
  }

  /** The last write queued for `key` and not yet in LevelDB: undefined when none, null for a delete. */
  queued(key: string): QueuedValue | undefined {
    return this.unwritten.get(key)?.value;
  }

  /** Reads a key, seeing queued writes first. */
  async read(key: string): Promise<string | undefined> {
    const q = this.queued(key);
    if (q !== undefined) return queuedValue(q);
    return this.db.get(key);
  }

  /** The outcome of the next batch, which carries every write queued so far. */
  done(): Promise<void> {
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
    // at the end of this event-loop turn: why: docs/benchmarks.md#one-leveldb-batch-per-event-loop-turn
    this.flushing ??= new Promise<void>((r) => setImmediate(r)).then(() => this.flush());
    return done;
  }

  /** Resolves once every write queued so far is in LevelDB: the batch carrying the last, not an idle queue (never, under load). */
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
}
