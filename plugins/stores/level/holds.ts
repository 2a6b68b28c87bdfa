/** The LevelDB store's holds, in memory only (never durable); checked and placed without an await between: atomic in this process. */
import { holdAdmits, type HoldOptions, type HoldVerdict } from 'gw/plugin/store';
import type { Counters } from './counters.ts';
import { HoldSet } from './hold-set.ts';

export class Holds {
  private readonly byKey = new Map<string, HoldSet>();
  private readonly counters: Counters;

  constructor(counters: Counters) {
    this.counters = counters;
  }

  /** Keys with holds in memory (lapsed ones not yet dropped included). */
  get size(): number {
    return this.byKey.size;
  }

  /** `Store.hold` on the full key `full`. */
  async hold(full: string, id: string, amount: number, opts: HoldOptions): Promise<HoldVerdict> {
    const r = this.counters.record(full);
    // from the loaded record to the hold nothing awaits: check-and-hold is atomic in this process
    const value = (r instanceof Promise ? await r : r)[opts.field] ?? 0;
    const held = this.live(full, id);
    const admitted = holdAdmits(value, held, amount, opts);
    if (admitted) {
      let m = this.byKey.get(full);
      if (!m) this.byKey.set(full, (m = new HoldSet()));
      m.add(id, amount, Date.now() + opts.ttlMs);
    }
    return { admitted, value, held };
  }

  /** `Store.settle`: the deltas are in the counter record before the hold goes (never counted zero times). */
  async settle(full: string, id: string, deltas: Record<string, number>): Promise<Record<string, number>> {
    const r = this.counters.record(full);
    const rec = r instanceof Promise ? await r : r;
    const out = this.counters.add(full, rec, deltas);
    this.release(full, id);
    return out;
  }

  /** Drops hold `id` on `full` (idempotent). */
  release(full: string, id: string): void {
    const m = this.byKey.get(full);
    if (!m) return;
    m.delete(id);
    if (m.size === 0) this.byKey.delete(full);
  }

  /** Sum of the unexpired holds on `full` other than `except`; expired ones are dropped. */
  live(full: string, except: string | undefined): number {
    const m = this.byKey.get(full);
    if (!m) return 0;
    const sum = m.live(Date.now(), except);
    if (m.size === 0) this.byKey.delete(full);
    return sum;
  }

  /** Drops the holds lapsed at `now` (epoch ms). */
  evictLapsed(now: number): void {
    for (const [key, m] of this.byKey) {
      m.expire(now);
      if (m.size === 0) this.byKey.delete(key);
    }
  }
}
