/** In-process per-key mutual exclusion: `run(key, fn)` waits for every earlier `run` on the key (backends' read-check-write). */
export class KeyLocks {
  private tails = new Map<string, Promise<unknown>>();

  /** Runs `fn` once every earlier `run` on `key` has settled; resolves or rejects as `fn` does. */
  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => {
      release = r;
    });
    const tail = prev.then(() => mine);
    this.tails.set(key, tail);
    try {
      await prev;
      return await fn();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
