/**
 * Cancellation of calls in flight. A 2025-11-25 client cancels a request with a
 * `notifications/cancelled` POST of its own, which may reach another SDK server object (each
 * HTTP request has its own) or, on a shared store, another instance: so calls in flight are
 * registered here by (session, request id), a cancellation aborts the local one at once, and
 * on a shared store it is also written to the store (`mcp:cancel:<session>:<id>`, one minute),
 * where calls running on other instances look every CHECK_MS.
 */
import type { Store } from '../../lib/store/types.ts';

const CHECK_MS = 500;
const TTL_MS = 60_000;

interface Tracked {
  /** The signal the call runs with: the SDK's own (transport closed), or a cancellation. */
  readonly signal: AbortSignal;
  /** The call ended: stop tracking it. */
  done(): void;
}

export class Cancels {
  private readonly store: Store;
  private readonly shared: () => boolean;
  private readonly inflight = new Map<string, AbortController>();

  /** @param store the `mcp` namespace; @param shared whether other instances share it. */
  constructor(store: Store, shared: () => boolean) {
    this.store = store;
    this.shared = shared;
  }

  /** Tracks a call of `session` (calls outside a session cannot be cancelled by notification, only by closing the request). */
  track(session: string | undefined, requestId: string | number, sdk: AbortSignal): Tracked {
    if (session === undefined) return { signal: sdk, done: () => undefined };
    const key = keyOf(session, requestId);
    const ac = new AbortController();
    this.inflight.set(key, ac);
    let timer: NodeJS.Timeout | undefined;
    if (this.shared()) {
      timer = setInterval(() => {
        this.store.get(key).then(
          (v) => v !== undefined && ac.abort(new Error('cancelled by the client')),
          () => undefined,
        );
      }, CHECK_MS);
      timer.unref();
    }
    return {
      signal: AbortSignal.any([sdk, ac.signal]),
      done: () => {
        clearInterval(timer);
        if (this.inflight.get(key) === ac) this.inflight.delete(key);
      },
    };
  }

  /** A client's `notifications/cancelled` for `requestId` of `session`. */
  async cancel(session: string, requestId: unknown): Promise<void> {
    if (typeof requestId !== 'string' && typeof requestId !== 'number') return;
    const key = keyOf(session, requestId);
    const local = this.inflight.get(key);
    if (local) local.abort(new Error('cancelled by the client'));
    else if (this.shared()) await this.store.set(key, '1', { ttlMs: TTL_MS });
  }
}

function keyOf(session: string, requestId: string | number): string {
  return `cancel:${session}:${typeof requestId}:${requestId}`;
}
