/**
 * Once across instances: an alert fires when its dedupe key is claimed, a sliding window of
 * limit 1 (`windowAdmit(key, 1, ttl)`: a set-if-absent with a TTL); each instance remembers
 * what it saw claimed, so a key above a threshold costs no store call per request.
 */
import type { Store } from 'gw/plugin';

/** Remembered claims past this count are pruned of the expired ones. */
const MEMO_PRUNE_AT = 10_000;

export class Claims {
  /** Dedupe key → epoch ms until which it is known to be claimed. */
  private readonly memo = new Map<string, number>();

  private readonly store: Store;

  constructor(store: Store) {
    this.store = store;
  }

  /** True when no claim on `key` is live (by this process's memory): worth asking the store. */
  open(key: string): boolean {
    const until = this.memo.get(key);
    return until === undefined || until <= Date.now();
  }

  /** Claims `key` for `ttlMs`: true for exactly one caller among every instance in any `ttlMs` span. */
  async claim(key: string, ttlMs: number): Promise<boolean> {
    if (!this.open(key)) return false;
    const v = await this.store.windowAdmit(`claim:${key}`, 1, ttlMs, { cost: 1 });
    // the store's TTL runs on real time (Redis: the server's), whatever clock the gateway has
    const now = Date.now();
    if (this.memo.size >= MEMO_PRUNE_AT) this.prune(now);
    this.memo.set(key, now + (v.admitted ? ttlMs : v.retryAfterMs));
    return v.admitted;
  }

  private prune(now: number): void {
    for (const [k, until] of this.memo) if (until <= now) this.memo.delete(k);
  }
}
