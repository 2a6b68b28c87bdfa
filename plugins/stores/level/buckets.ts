/** The LevelDB store's time buckets: one record per (bucket, series), recent ones in memory; expired ones deleted on first write and by the sweep. */
import type { BucketRow, KeyLocks } from 'gw/plugin/store';
import { BUCKET_SPACE, pad } from './layout.ts';
import type { Db, WriteQueue } from './writer.ts';

/** A bucket record kept in memory while its bucket is recent (the one being written, and the one before). */
interface CachedBucket {
  start: number;
  bucketMs: number;
  rec: Record<string, number>;
}

export class Buckets {
  /** Records of recent buckets; buckets two periods old are evicted. */
  private readonly cached = new Map<string, CachedBucket>();
  private newestBucket = 0;
  /** Bucket key prefixes written by this process → how long a bucket lives after it starts (pruning). */
  private readonly written = new Map<string, number>();
  /** Prunes in flight by bucket key prefix (reads wait for them). */
  private readonly pruning = new Map<string, Promise<void>>();
  private readonly db: Db;
  private readonly writer: WriteQueue;
  private readonly locks: KeyLocks;

  constructor(db: Db, writer: WriteQueue, locks: KeyLocks) {
    this.db = db;
    this.writer = writer;
    this.locks = locks;
  }

  /** `Store.bucketIncr` on the full key `full`. */
  incr(full: string, at: number, series: string, deltas: Record<string, number>, opts: { bucketMs: number; retentionMs: number }): Promise<void> {
    const prefix = `${BUCKET_SPACE}${full}\u0000`;
    if (!this.written.has(prefix)) {
      // first write of this process: drop what outlived its retention while gw was down
      this.written.set(prefix, opts.bucketMs + opts.retentionMs);
      const p = this.prune(prefix, opts.bucketMs + opts.retentionMs)
        .catch(() => undefined)
        .finally(() => this.pruning.delete(prefix));
      this.pruning.set(prefix, p);
    }
    const start = at - (at % opts.bucketMs);
    const k = `${prefix}${pad(start)}\u0000${series}`;
    const cached = this.cached.get(k);
    if (cached) return this.add(k, cached, deltas);
    // first use of this bucket: load it once, even under concurrent calls
    return this.locks.run(k, async () => {
      let c = this.cached.get(k);
      if (!c) {
        const raw = await this.writer.read(k);
        c = { start, bucketMs: opts.bucketMs, rec: raw === undefined ? {} : JSON.parse(raw) };
        this.cached.set(k, c);
      }
      return this.add(k, c, deltas);
    });
  }

  /** `Store.buckets` on the full key `full`: the rows whose bucket starts in [`from`, `to`). */
  async *read(full: string, from: number, to: number): AsyncIterable<BucketRow> {
    const prefix = `${BUCKET_SPACE}${full}\u0000`;
    if (!(to > from)) return;
    await this.pruning.get(prefix);
    await this.writer.drain();
    for await (const [k, v] of this.db.iterator({ gte: prefix + pad(Math.max(0, from)), lt: prefix + pad(Math.max(0, to)) })) {
      const rest = k.slice(prefix.length);
      yield { start: Number(rest.slice(0, 16)), series: rest.slice(17), counters: JSON.parse(v) as Record<string, number> };
    }
  }

  /** Deletes the buckets past their retention of every key this process wrote (the sweep). */
  async pruneWritten(): Promise<void> {
    for (const [prefix, keepMs] of this.written) await this.prune(prefix, keepMs);
  }

  /** Adds deltas to a loaded bucket record and queues its put (no await in between: atomic in this process). */
  private add(k: string, c: CachedBucket, deltas: Record<string, number>): Promise<void> {
    const rec = c.rec;
    for (const f in deltas) rec[f] = (rec[f] ?? 0) + deltas[f]!;
    if (c.start > this.newestBucket) {
      this.newestBucket = c.start;
      const now = Date.now();
      for (const [key, b] of this.cached) if (b.start + 2 * b.bucketMs <= now) this.cached.delete(key);
    }
    return this.writer.write({ type: 'put', key: k, value: () => JSON.stringify(rec) }).catch((err) => {
      // the cached record ran ahead of the disk: read it again next time
      this.cached.delete(k);
      throw err;
    });
  }

  /** Deletes the buckets of `prefix` past their retention (`keepMs` after their start). */
  private async prune(prefix: string, keepMs: number): Promise<void> {
    const cutoff = Date.now() - keepMs;
    await this.writer.drain();
    await this.db.clear({ gte: prefix, lt: prefix + pad(Math.max(0, cutoff)) });
    for (const [key, b] of this.cached) if (key.startsWith(prefix) && b.start < cutoff) this.cached.delete(key);
  }
}
