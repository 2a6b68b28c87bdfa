/** A view of the LevelDB store under one namespace; the root view closes the database. */
import type { Store } from 'gw/plugin';
import type { BucketRow, HoldOptions, HoldVerdict, WindowVerdict } from 'gw/plugin/store';
import type { LevelState } from './state.ts';

export class LevelView implements Store {
  private readonly s: LevelState;
  private readonly prefix: string;
  private readonly root: boolean;

  constructor(s: LevelState, prefix: string, root: boolean) {
    this.s = s;
    this.prefix = prefix;
    this.root = root;
  }

  namespace(ns: string): Store {
    return new LevelView(this.s, `${this.prefix}${ns}:`, false);
  }

  get(key: string): Promise<string | undefined> {
    return this.s.values.get(this.prefix + key);
  }

  set(key: string, value: string, opts?: { ttlMs?: number }): Promise<void> {
    const full = this.prefix + key;
    this.s.counters.forget(full);
    return this.s.values.set(full, value, opts?.ttlMs);
  }

  async delete(key: string): Promise<void> {
    this.s.counters.forget(this.prefix + key);
    await this.s.values.delete(this.prefix + key);
  }

  entries(prefix = ''): AsyncIterable<[string, string]> {
    return this.s.values.entries(this.prefix + prefix, this.prefix.length);
  }

  async clear(prefix = ''): Promise<void> {
    const start = this.prefix + prefix;
    this.s.counters.forgetUnder(start);
    await this.s.values.clear(start);
  }

  incr(key: string, deltas: Record<string, number>): Promise<Record<string, number>> {
    return this.s.counters.incr(this.prefix + key, deltas);
  }

  counters(key: string): Promise<Record<string, number>> {
    return this.s.counters.read(this.prefix + key);
  }

  dropFields(key: string, fields: readonly string[]): Promise<void> {
    return this.s.counters.drop(this.prefix + key, fields);
  }

  windowAdmit(key: string, limit: number, windowMs: number, opts: { cost?: number; pending?: number; now?: number } = {}): Promise<WindowVerdict> {
    return this.s.windows.admit(this.prefix + key, limit, windowMs, opts);
  }

  windowAdd(key: string, amount: number, windowMs: number, now = Date.now()): Promise<void> {
    return this.s.windows.add(this.prefix + key, amount, windowMs, now);
  }

  hold(key: string, id: string, amount: number, opts: HoldOptions): Promise<HoldVerdict> {
    return this.s.holds.hold(this.prefix + key, id, amount, opts);
  }

  settle(key: string, id: string, deltas: Record<string, number>): Promise<Record<string, number>> {
    return this.s.holds.settle(this.prefix + key, id, deltas);
  }

  async release(key: string, id: string): Promise<void> {
    this.s.holds.release(this.prefix + key, id);
  }

  async held(key: string): Promise<number> {
    return this.s.holds.live(this.prefix + key, undefined);
  }

  bucketIncr(key: string, at: number, series: string, deltas: Record<string, number>, opts: { bucketMs: number; retentionMs: number }): Promise<void> {
    return this.s.buckets.incr(this.prefix + key, at, series, deltas, opts);
  }

  buckets(key: string, from: number, to: number): AsyncIterable<BucketRow> {
    return this.s.buckets.read(this.prefix + key, from, to);
  }

  ringPush(key: string, value: string, maxLen: number): Promise<number> {
    return this.s.rings.push(this.prefix + key, value, maxLen);
  }

  ringRead(key: string, opts: { limit?: number; before?: number } = {}): AsyncIterable<[number, string]> {
    return this.s.rings.read(this.prefix + key, opts);
  }

  withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
    return this.s.locks.run(`lock:${this.prefix}${key}`, fn);
  }

  async close(): Promise<void> {
    if (this.root) await this.s.close();
  }

  /** Sizes of the in-memory state (tests: memory stays bounded). */
  memory(): { counters: number; windows: number; holds: number; generations: number } {
    return this.s.memory();
  }

  /** Runs the idle eviction now (tests; it runs every IDLE_MS by itself). */
  evictIdle(now?: number): void {
    this.s.evictIdle(now);
  }
}
