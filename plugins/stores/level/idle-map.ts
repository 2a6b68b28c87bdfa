/**
 * A map that forgets entries nobody used for a while: two generations, the current one and
 * the previous. A hit in the previous generation moves the entry to the current one; each
 * `sweep` drops what is left in the previous generation (unless `keep` says otherwise) and
 * ages the current one. An entry untouched for two sweep intervals is gone, one touched
 * within the last interval never is, and a hit on a hot entry costs one Map lookup.
 */
export class IdleMap<K, V> {
  private cur = new Map<K, V>();
  private prev = new Map<K, V>();

  get(key: K): V | undefined {
    const v = this.cur.get(key);
    if (v !== undefined || this.prev.size === 0) return v;
    const old = this.prev.get(key);
    if (old !== undefined) {
      this.prev.delete(key);
      this.cur.set(key, old);
    }
    return old;
  }

  set(key: K, value: V): void {
    this.prev.delete(key);
    this.cur.set(key, value);
  }

  delete(key: K): void {
    this.cur.delete(key);
    this.prev.delete(key);
  }

  /** Every key, both generations. */
  *keys(): IterableIterator<K> {
    yield* this.cur.keys();
    yield* this.prev.keys();
  }

  /** Every entry, both generations (no entry is touched by iterating). */
  *entries(): IterableIterator<[K, V]> {
    yield* this.cur.entries();
    yield* this.prev.entries();
  }

  get size(): number {
    return this.cur.size + this.prev.size;
  }

  /**
   * Drops the entries untouched since the last sweep; `keep(key, value)` true keeps one a
   * while longer (it is aged again at the next sweep). Returns how many were dropped.
   */
  sweep(keep?: (key: K, value: V) => boolean): number {
    let dropped = 0;
    for (const [k, v] of this.prev) {
      if (keep?.(k, v)) this.cur.set(k, v);
      else dropped++;
    }
    this.prev = this.cur;
    this.cur = new Map();
    return dropped;
  }
}
