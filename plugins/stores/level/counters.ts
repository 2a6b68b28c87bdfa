/** The LevelDB store's counter records, in memory while in use and authoritative once loaded: an update is a synchronous add and one queued put. */
import type { KeyLocks } from 'gw/plugin/store';
import { IdleMap } from './idle-map.ts';
import type { Values } from './values.ts';

type Rec = Record<string, number>;

export class Counters {
  private readonly records = new IdleMap<string, Rec>();
  private readonly values: Values;
  private readonly locks: KeyLocks;

  constructor(values: Values, locks: KeyLocks) {
    this.values = values;
    this.locks = locks;
  }

  /** Records in memory. */
  get size(): number {
    return this.records.size;
  }

  /** Adds `deltas` to the record at `full` and resolves with a copy once it is on disk. */
  async incr(full: string, deltas: Rec): Promise<Rec> {
    const r = this.record(full);
    return this.add(full, r instanceof Promise ? await r : r, deltas);
  }

  /** A copy of the record at `full` ({} when absent). */
  async read(full: string): Promise<Rec> {
    const r = this.record(full);
    return { ...(r instanceof Promise ? await r : r) };
  }

  /** The record at `full` (shared: callers copy it), synchronously when in memory, else loaded once. */
  record(full: string): Rec | Promise<Rec> {
    const cached = this.records.get(full);
    if (cached) return cached;
    return this.locks.run(full, async () => {
      const again = this.records.get(full);
      if (again) return again;
      const raw = await this.values.read(full);
      // another path may have loaded it while we read: that copy is the live one
      const now = this.records.get(full);
      if (now) return now;
      const rec: Rec = raw === undefined ? {} : JSON.parse(raw);
      this.records.set(full, rec);
      return rec;
    });
  }

  /** Adds `deltas` to `rec` synchronously; a copy once on disk (a failed write drops the memory copy: as if never made). */
  add(full: string, rec: Rec, deltas: Rec): Promise<Rec> {
    for (const f in deltas) rec[f] = (rec[f] ?? 0) + deltas[f]!;
    const out = { ...rec };
    return this.values
      .put(full, () => JSON.stringify(rec))
      .then(
        () => out,
        (err) => {
          if (this.records.get(full) === rec) this.records.delete(full);
          throw err;
        },
      );
  }

  /** Removes `fields` from the record at `full` (synchronously, as `add`) and resolves once it is on disk. */
  async drop(full: string, fields: readonly string[]): Promise<void> {
    const r = this.record(full);
    const rec = r instanceof Promise ? await r : r;
    let changed = false;
    for (const f of fields) {
      if (!Object.hasOwn(rec, f)) continue;
      delete rec[f];
      changed = true;
    }
    if (!changed) return;
    await this.values
      .put(full, () => JSON.stringify(rec))
      .catch((err) => {
        if (this.records.get(full) === rec) this.records.delete(full);
        throw err;
      });
  }

  /** Forgets the copy of `full` (its key is written as a value or deleted). */
  forget(full: string): void {
    this.records.delete(full);
  }

  /** Forgets the copies of every key starting with `start` (a clear). */
  forgetUnder(start: string): void {
    for (const k of this.records.keys()) if (k.startsWith(start)) this.records.delete(k);
  }

  /** Drops the records nobody used since the last call (the disk has them). */
  evictIdle(): void {
    this.records.sweep();
  }
}
