/**
 * Which recordings a run served, kept in the provider's store namespace (`used`, a JSON list
 * of entry ids) for `gw replay check`, which lists the recordings nothing asked for. Emptied
 * when the provider starts; written at most once a second while it serves, and at close.
 * Store failures are never the request's: the ledger is a report, not state.
 */
import type { Store } from 'gw/plugin';

/** The store key of the ledger, in the provider's namespace. */
export const LEDGER_KEY = 'used';
const FLUSH_MS = 1000;

export class Ledger {
  readonly #store: Store;
  readonly #used: ReadonlySet<string>;
  #written = -1;
  #timer: NodeJS.Timeout | undefined;
  /** The last write, so writes land in order. */
  #last: Promise<void>;

  /** A ledger of `used` (the matcher's set of served ids), emptied in the background. */
  constructor(store: Store, used: ReadonlySet<string>) {
    this.#store = store;
    this.#used = used;
    this.#last = this.#write();
  }

  /** Called after a recording was served: schedules a write. */
  touch(): void {
    if (this.#timer || this.#used.size === this.#written) return;
    this.#timer = setTimeout(() => void this.flush(), FLUSH_MS);
    this.#timer.unref();
  }

  /** Writes the ids served so far (after any write before it). */
  flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#used.size !== this.#written) this.#last = this.#last.then(() => this.#write());
    return this.#last;
  }

  async #write(): Promise<void> {
    const size = this.#used.size;
    try {
      await this.#store.set(LEDGER_KEY, JSON.stringify([...this.#used]));
      this.#written = size;
    } catch {
      // no store to report to (a store outage; the docs' config check): the run goes on
    }
  }
}
