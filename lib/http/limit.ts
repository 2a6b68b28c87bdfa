/**
 * A provider's cap on concurrent upstream requests (`max_connections`, none by default): past
 * it a FIFO queue whose wait counts toward `timeout_seconds`, shown in /metrics and the `-vv`
 * log. A slot is held until the response body is read or dropped.
 */

/** Someone who hears about waits (the gateway's metrics). */
export interface QueueObserver {
  /** A request waited `ms` for a slot (not called when it got one at once). */
  waited(provider: string, ms: number): void;
}

interface Waiter {
  resolve: () => void;
  reject: (err: unknown) => void;
}

export class ConnectionLimit {
  readonly provider: string;
  readonly max: number;
  /** Requests holding a slot now. */
  active = 0;
  /** Requests waiting for a slot now. */
  depth = 0;
  private readonly queue: Array<Waiter | undefined> = [];
  private head = 0;

  constructor(provider: string, max: number) {
    this.provider = provider;
    this.max = max;
  }

  /**
   * Takes a slot, waiting up to `timeoutMs` for one.
   * @returns the ms waited.
   * @throws `onTimeout()` when no slot freed in time; the abort reason when `signal` fired.
   */
  async acquire(timeoutMs: number, signal: AbortSignal | undefined, onTimeout: () => Error): Promise<number> {
    if (this.active < this.max && this.depth === 0) {
      this.active++;
      return 0;
    }
    const t0 = performance.now();
    await new Promise<void>((resolve, reject) => {
      const w: Waiter = { resolve, reject };
      const timer = setTimeout(() => this.drop(w, onTimeout()), timeoutMs);
      const abort = () => this.drop(w, signal?.reason ?? new Error('aborted'));
      signal?.addEventListener('abort', abort, { once: true });
      w.resolve = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', abort);
        resolve();
      };
      w.reject = (err) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', abort);
        reject(err);
      };
      this.queue.push(w);
      this.depth++;
    });
    return performance.now() - t0;
  }

  /** Gives a slot back: the next waiter gets it. */
  release(): void {
    while (this.head < this.queue.length) {
      const w = this.queue[this.head];
      this.queue[this.head++] = undefined;
      if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue.splice(0, this.head);
        this.head = 0;
      }
      if (w) {
        // the slot passes straight to the waiter: `active` stays the same
        this.depth--;
        w.resolve();
        return;
      }
    }
    this.active--;
  }

  private drop(w: Waiter, err: unknown): void {
    const i = this.queue.indexOf(w, this.head);
    if (i < 0) return;
    this.queue[i] = undefined;
    this.depth--;
    w.reject(err);
  }
}
