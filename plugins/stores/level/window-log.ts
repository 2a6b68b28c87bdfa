/** A sliding-window log in memory: a ring of two Float64Arrays with a running total, growing and shrinking with traffic, appending without allocating. */
const MIN_CAPACITY = 16;

export class WindowLog {
  private ts = new Float64Array(MIN_CAPACITY);
  private amt = new Float64Array(MIN_CAPACITY);
  /** Index of the oldest entry. */
  private head = 0;
  /** Live entries. */
  size = 0;
  /** Sum of the live amounts. */
  total = 0;

  /** Appends an entry; callers append in time order (`ts` epoch ms). */
  push(ts: number, amount: number): void {
    if (this.size === this.ts.length) this.resize(this.ts.length * 2);
    const i = (this.head + this.size) & (this.ts.length - 1);
    this.ts[i] = ts;
    this.amt[i] = amount;
    this.size++;
    this.total += amount;
  }

  /** Drops entries at or before `cutoff` (epoch ms); returns how many left. */
  expire(cutoff: number): number {
    const mask = this.ts.length - 1;
    let n = 0;
    while (n < this.size && this.ts[(this.head + n) & mask]! <= cutoff) this.total -= this.amt[(this.head + n++) & mask]!;
    if (n === 0) return 0;
    this.head = (this.head + n) & mask;
    this.size -= n;
    if (this.size === 0) {
      this.head = 0;
      this.total = 0; // no float residue once empty
    }
    if (this.ts.length > MIN_CAPACITY && this.size * 4 < this.ts.length) this.resize(this.ts.length / 2);
    return n;
  }

  /** Ms until `total + pending < limit` as entries leave; `windowMs` when even an empty window would not do. */
  retryAfter(limit: number, pending: number, now: number, windowMs: number): number {
    const mask = this.ts.length - 1;
    let rest = this.total;
    for (let k = 0; k < this.size; k++) {
      const i = (this.head + k) & mask;
      rest -= this.amt[i]!;
      if (rest + pending < limit) return Math.max(1, this.ts[i]! + windowMs - now);
    }
    return windowMs;
  }

  /** Copies the live entries, oldest first, into rings of `capacity` (a power of two ≥ size). */
  private resize(capacity: number): void {
    const mask = this.ts.length - 1;
    const ts = new Float64Array(capacity);
    const amt = new Float64Array(capacity);
    for (let k = 0; k < this.size; k++) {
      ts[k] = this.ts[(this.head + k) & mask]!;
      amt[k] = this.amt[(this.head + k) & mask]!;
    }
    this.ts = ts;
    this.amt = amt;
    this.head = 0;
  }
}
