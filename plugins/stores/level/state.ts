/** One open LevelDB database and its parts, one per kind of data, wired together with what spans them (idle eviction, close). */
import { KeyLocks } from 'gw/plugin/store';
import { Buckets } from './buckets.ts';
import { Counters } from './counters.ts';
import { ValueFilter } from './filter.ts';
import { Holds } from './holds.ts';
import { Rings } from './rings.ts';
import { SWEEP_MS, Sweeper } from './sweep.ts';
import { Values } from './values.ts';
import { Windows } from './windows.ts';
import { type Db, WriteQueue } from './writer.ts';

export class LevelState {
  readonly db: Db;
  /** Per-key locks: first loads of counters and buckets, and `withLock`. */
  readonly locks = new KeyLocks();
  readonly writer: WriteQueue;
  readonly values: Values;
  readonly counters: Counters;
  readonly holds: Holds;
  readonly windows: Windows;
  readonly buckets: Buckets;
  readonly rings: Rings;
  readonly sweeper: Sweeper;
  /** The sweep and idle eviction timers, set by openLevelStore. */
  timers: NodeJS.Timeout[] = [];

  constructor(db: Db) {
    this.db = db;
    this.writer = new WriteQueue(db);
    this.values = new Values(db, this.writer, new ValueFilter(SWEEP_MS));
    this.counters = new Counters(this.values, this.locks);
    this.holds = new Holds(this.counters);
    this.windows = new Windows(db, this.writer);
    this.buckets = new Buckets(db, this.writer, this.locks);
    this.rings = new Rings(db, this.writer);
    this.sweeper = new Sweeper(db, this.writer, this.values, this.buckets);
  }

  /** Keys the sweeper is checking (tests). */
  get sweeping(): Set<string> {
    return this.values.sweeping;
  }

  /** Runs a sweep now (it runs every SWEEP_MS by itself); `now` (epoch ms) is for tests. */
  sweep(now?: number): Promise<void> {
    return this.sweeper.sweep(now);
  }

  /** Drops idle counters, empty windows and lapsed holds from memory: it follows the live keys (the disk has the rest). */
  evictIdle(now = Date.now()): void {
    this.counters.evictIdle();
    this.windows.evictIdle(now);
    this.holds.evictLapsed(now);
  }

  /** Sizes of the in-memory state (tests: memory stays bounded). */
  memory(): { counters: number; windows: number; holds: number; generations: number } {
    return { counters: this.counters.size, windows: this.windows.size, holds: this.holds.size, generations: this.values.filter.generationCount };
  }

  /** Writes what is queued, stops the timers and closes the database. */
  async close(): Promise<void> {
    await this.writer.drain();
    for (const t of this.timers) clearInterval(t);
    await this.db.close();
  }
}
