/** One counter's holds in this process, by request id with an expiry; their sum kept as they come and go, lapsed ones scanned out rarely. */
export class HoldSet {
  private readonly byId = new Map<string, { amount: number; expiresAt: number }>();
  private sum = 0;
  /** The earliest expiry among the holds (epoch ms), Infinity when none. */
  private nextExpiry = Number.POSITIVE_INFINITY;
  /** Changes since the sum was last recomputed: float additions and subtractions drift. */
  private changes = 0;

  /** Holds, lapsed ones not yet dropped included. */
  get size(): number {
    return this.byId.size;
  }

  /** Holds `amount` for `id` until `expiresAt` (epoch ms), replacing its earlier hold. */
  add(id: string, amount: number, expiresAt: number): void {
    const old = this.byId.get(id);
    if (old) this.sum -= old.amount;
    this.byId.set(id, { amount, expiresAt });
    this.sum += amount;
    if (expiresAt < this.nextExpiry) this.nextExpiry = expiresAt;
    this.changed();
  }

  /** Drops the hold of `id`, if any. */
  delete(id: string): void {
    const h = this.byId.get(id);
    if (!h) return;
    this.byId.delete(id);
    this.sum -= h.amount;
    this.changed();
  }

  /** Sum of the holds unexpired at `now` (epoch ms), but `except`'s; lapsed ones are dropped. */
  live(now: number, except?: string): number {
    if (now >= this.nextExpiry) this.expire(now);
    const own = except === undefined ? undefined : this.byId.get(except);
    return own ? this.sum - own.amount : this.sum;
  }

  /** Drops the holds lapsed at `now` and recomputes the sum and the earliest expiry. */
  expire(now: number): void {
    let sum = 0;
    let next = Number.POSITIVE_INFINITY;
    for (const [id, h] of this.byId) {
      if (h.expiresAt <= now) this.byId.delete(id);
      else {
        sum += h.amount;
        if (h.expiresAt < next) next = h.expiresAt;
      }
    }
    this.sum = sum;
    this.nextExpiry = next;
    this.changes = 0;
  }

  private changed(): void {
    if (this.byId.size === 0) {
      this.sum = 0;
      this.nextExpiry = Number.POSITIVE_INFINITY;
      this.changes = 0;
    } else if (++this.changes >= 4096) this.expire(Number.NEGATIVE_INFINITY); // nothing lapses at -∞: a plain recount
  }
}
