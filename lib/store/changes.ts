/**
 * Changes every instance on a shared store must see (runtime providers and keys, runtime MCP
 * servers): a counter bumped after each stored change, which the other instances read on every
 * poll, and the lock every change holds so two never interleave.
 */
import type { Store } from './types.ts';

export class ChangeCounter {
  private readonly store: Store;
  private readonly counter: string;
  private readonly lock: string;

  /** @param store the namespace the changes live in; `counter` (`{n}`) and `lock` are keys in it. */
  constructor(store: Store, counter = 'version', lock = 'changes') {
    this.store = store;
    this.counter = counter;
    this.lock = lock;
  }

  /** The change counter (0 before the first change). */
  async version(): Promise<number> {
    return (await this.store.counters(this.counter)).n ?? 0;
  }

  /** Announces a change to every instance sharing the store; returns the new version. */
  async bump(): Promise<number> {
    return (await this.store.incr(this.counter, { n: 1 })).n!;
  }

  /** Runs `fn` holding the change lock, so changes never interleave. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.store.withLock(this.lock, fn);
  }
}
