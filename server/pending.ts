/**
 * The requests a server is handling, for graceful shutdown. A request counts from its
 * arrival until both its socket side is done (the response closed: sent, or the client
 * left) and gw is done with it (the app's handler settled: hooks run, usage and spend
 * written). A client that leaves early closes the first long before the second: shutdown
 * must not close the store under a handler still charging for it.
 */
/**
 * How long handlers get to unwind after shutdown closed their connections (ms): they write
 * the charges of clients that left before the store closes.
 */
export const UNWIND_MS = 5_000;

/** The count of requests in progress, and a bounded wait for none. */
export class PendingRequests {
  private n = 0;
  private waiters: Array<() => void> = [];

  /** Requests in progress. */
  get size(): number {
    return this.n;
  }

  /**
   * Counts one request until `res` has closed and `handled` has settled (either way).
   * @param handled the app's handling of the request (Koa's callback returns it)
   */
  track(res: { once(event: 'close', f: () => void): unknown }, handled: unknown): void {
    this.n++;
    let open = 2;
    const done = () => {
      if (--open === 0 && --this.n === 0) for (const w of this.waiters.splice(0)) w();
    };
    res.once('close', done);
    Promise.resolve(handled).then(done, done);
  }

  /** Resolves true once none are in progress, or false after `ms` with some still running. */
  idle(ms: number): Promise<boolean> {
    if (this.n === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(false);
      }, ms);
      this.waiters.push(waiter);
    });
  }
}
