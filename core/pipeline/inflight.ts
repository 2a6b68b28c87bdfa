/**
 * `max_parallel_requests` of a virtual key: how many of its requests may be in flight at
 * once, over every instance sharing the store. Built on the store's holds (the same atomic
 * step the budget reserves with): admission places a hold of 1 against a counter nobody
 * increments, so it is refused exactly when `limit` holds are live. Holds are never
 * durable and belong to a live instance (Redis drops a crashed instance's holds within its
 * liveness TTL), so a request that died never keeps its slot.
 *
 * A slot is taken after the model check and before onRequest (a refused model takes none,
 * and a request refused here spends no rate-limit window or budget), and given back when
 * the request's accounting is done: before a stream's terminator or error frame (stream.ts),
 * and by the app boundary for everything else, before a whole answer's body is written. A
 * client that saw its answer end can therefore always start the next request.
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
   * Takes a slot for `rc` when its key has `max_parallel_requests`; nothing otherwise.
   * @throws GatewayError 429 `parallel_limit_exceeded` (retry-after 1 s), 503 when the store is away.
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
   * Gives `rc`'s slot back; undefined (nothing to wait for) when it holds none, so the
   * common case allocates nothing. Idempotent; a failure is logged, never thrown: the hold
   * then lapses with its holder (the Redis store also retries the release once it is back).
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
