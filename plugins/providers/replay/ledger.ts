/**
 * Which recordings a run served, kept in the provider's store namespace (`used`, a JSON list
 * of entry ids) for `gw replay check`, which lists the recordings nothing asked for. Cleared
 * when the provider starts; written at most once a second while it serves, and at close.
 */
import type { Store } from 'gw/plugin';

/** The store key of the ledger, in the provider's namespace. */
export const LEDGER_KEY = 'used';
const FLUSH_MS = 1000;

export class Ledger {
  readonly #store: Store;
  readonly #used: ReadonlySet<string>;
  #written = 0;
  #timer: NodeJS.Timeout | undefined;

  private constructor(store: Store, used: ReadonlySet<string>) {
    this.#store = store;
    this.#used = used;
  }

  /** A fresh ledger of `used` (the matcher's set of served ids). */
  static async start(store: Store, used: ReadonlySet<string>): Promise<Ledger> {
    await store.delete(LEDGER_KEY);
    return new Ledger(store, used);
  }

  /** Called after a recording was served: schedules a write. */
  touch(): void {
    if (this.#timer || this.#used.size === this.#written) return;
    this.#timer = setTimeout(() => void this.flush().catch(() => undefined), FLUSH_MS);
    this.#timer.unref();
  }

  /** Writes the ids served so far. */
  async flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#used.size === this.#written) return;
    this.#written = this.#used.size;
    await this.#store.set(LEDGER_KEY, JSON.stringify([...this.#used]));
  }
}
