/**
 * A sliding-window log in memory: (time, amount, id) entries in time order with a running
 * total. Expiring is amortised O(1) per entry (a moving head, compacted now and then), so
 * admission costs no allocation beyond the entry itself.
 */
export class WindowLog {
  private ts: number[] = [];
  private amt: number[] = [];
  private ids: string[] = [];
  private head = 0;
  /** Sum of the live amounts. */
  total = 0;

  /** Appends an entry; callers append in time order. */
  push(ts: number, amount: number, id: string): void {
    this.ts.push(ts);
    this.amt.push(amount);
    this.ids.push(id);
    this.total += amount;
  }

  /** Drops entries at or before `cutoff` (epoch ms); returns their ids (for deletion on disk). */
  expire(cutoff: number): string[] {
    const { ts } = this;
    if (this.head >= ts.length || ts[this.head]! > cutoff) return NONE;
    const start = this.head;
    while (this.head < ts.length && ts[this.head]! <= cutoff) this.total -= this.amt[this.head++]!;
    const dropped = this.ids.slice(start, this.head);
    if (this.head === ts.length) {
      this.ts = [];
      this.amt = [];
      this.ids = [];
      this.head = 0;
      this.total = 0; // no float residue once empty
    } else if (this.head > 1024 && this.head * 2 > ts.length) {
      this.ts = ts.slice(this.head);
      this.amt = this.amt.slice(this.head);
      this.ids = this.ids.slice(this.head);
      this.head = 0;
    }
    return dropped;
  }

  /**
   * Ms from `now` until `total + pending < limit` as the oldest entries leave a window of
   * `windowMs`; `windowMs` when even an empty window would not do (pending alone too large).
   */
  retryAfter(limit: number, pending: number, now: number, windowMs: number): number {
    let rest = this.total;
    for (let i = this.head; i < this.ts.length; i++) {
      rest -= this.amt[i]!;
      if (rest + pending < limit) return Math.max(1, this.ts[i]! + windowMs - now);
    }
    return windowMs;
  }
}

const NONE: string[] = [];
