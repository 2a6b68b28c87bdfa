/**
 * The requests a server is handling, for graceful shutdown: each counts until its response
 * closed and its handler settled (a client that left early must still be charged).
 */
/** Ms handlers get to write their charges after shutdown closed their connections. */
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
