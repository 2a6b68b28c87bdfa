/**
 * A virtual key's `max_parallel_requests` over every instance sharing the store: a store hold
 * of 1 per request (never durable: a dead request keeps no slot), taken after the model check
 * and before onRequest, given back once the request's accounting is done (before a stream's
 * terminator, or as a whole answer is written), so a client that saw its answer end can start the next.
 */
import type { RequestContext } from '../context.ts';
import { PARALLEL_LIMIT } from '../error-codes.ts';
import type { Store } from '../../lib/store/types.ts';

/** rc.state slot: the request's hold. */
const SLOT = Symbol('gw.inflight');
/** Store key prefix of a key's in-flight holds (namespace `keys`). */
const PREFIX = 'inflight:';
/** A hold lapses after this long even if its request never ended (a bug guard: every path gives it back). */
const HOLD_TTL_MS = 3_600_000;

interface Slot {
  key: string;
  id: string;
}

export class InflightLimiter {
  private readonly store: Store;
  private seq = 0;

  /** @param root the gateway's store; holds live under its `keys:` namespace. */
  constructor(root: Store) {
    this.store = root.namespace('keys');
  }

  /**
   * Takes a slot for `rc` when its key has `max_parallel_requests`. @throws GatewayError 429 `parallel_limit_exceeded` (retry-after 1 s), 503 when the store is away
   */
  async acquire(rc: RequestContext): Promise<void> {
    const limit = rc.key?.maxParallelRequests;
    if (limit === undefined) return;
    const key = PREFIX + rc.key!.name;
    // our own id, not rc.id: a client-chosen x-request-id may repeat (the Redis store adds the instance)
    const id = `${++this.seq}`;
    const v = await this.store.hold(key, id, 1, { field: 'n', limit, ttlMs: HOLD_TTL_MS });
    if (!v.admitted) throw PARALLEL_LIMIT({ key: rc.key!.name, limit }, { headers: { 'retry-after': '1' } });
    rc.state.set(SLOT, { key, id } satisfies Slot);
  }

  /**
   * Gives `rc`'s slot back (undefined when it holds none: no allocation). Idempotent; a failure is logged, the hold then lapses with its holder.
   */
  release(rc: RequestContext): Promise<void> | undefined {
    const slot = rc.state.get(SLOT) as Slot | undefined;
    if (slot === undefined) return undefined;
    rc.state.delete(SLOT);
    return this.store.release(slot.key, slot.id).catch((err: Error) => {
      rc.log.warn({ req: rc.id, err: err.message }, 'could not give back an in-flight slot; it lapses with its holder');
    });
  }

  /** Requests of key `name` in flight now, over every instance on the store. */
  inflight(name: string): Promise<number> {
    return this.store.held(PREFIX + name);
  }
}
