/**
 * A stream's first item awaited inside dispatch, so a stream failing before it is retried like
 * any pre-stream failure; a first item slower than `waitMs` is not waited for.
 */

/** A stream whose first item may already be known. */
export interface Primed<T> {
  items: AsyncIterable<T>;
  /** True when the first item (or the end) already arrived. */
  ready: boolean;
  /** The first item, when it already arrived (peek it without consuming `items`). */
  first: T | undefined;
  /** Abandons the stream without reading it: closes the source (its upstream body). */
  close(): Promise<void>;
}

const PENDING = Symbol('pending');

/**
 * Pulls the first item of `source` within `waitMs`.
 * @throws what the source throws before its first item.
 */
export async function primeFirst<T>(source: AsyncIterable<T>, waitMs: number): Promise<Primed<T>> {
  const it = source[Symbol.asyncIterator]();
  const first = it.next();
  let timer: NodeJS.Timeout | undefined;
  let r: IteratorResult<T> | typeof PENDING;
  try {
    r = await Promise.race([
      first,
      new Promise<typeof PENDING>((res) => {
        timer = setTimeout(res, waitMs, PENDING);
      }),
    ]);
  } finally {
    // also when the first item is a failure: the timer would hold the process (and its memory) for waitMs
    clearTimeout(timer);
  }
  if (r === PENDING) first.catch(() => undefined);
  async function* items(): AsyncGenerator<T> {
    try {
      const f = await first;
      if (f.done) return;
      yield f.value;
      for (;;) {
        const n = await it.next();
        if (n.done) return;
        yield n.value;
      }
    } finally {
      await it.return?.();
    }
  }
  return {
    items: items(),
    ready: r !== PENDING,
    first: r === PENDING || r.done ? undefined : r.value,
    close: async () => {
      await it.return?.();
    },
  };
}
