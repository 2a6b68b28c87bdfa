/**
 * The `cache` extension: non-streaming answers (`rc.cacheable`) from the store, keyed by the
 * SHA-256 of the body bytes (shared across keys; route and model hashed in beyond chat). Hits
 * pass onRequest (a request for rate limits) and cost nothing.
 */
import { hash } from 'node:crypto';
import { z } from 'zod';
import { type CachedResponse, defineExtension, type RequestContext, type ResponseInfo, type Store } from 'gw/plugin';

const PLUGIN_NAME = 'cache';
/** rc.state slot: the entry key of a miss, to write at onResponse. */
const ENTRY = Symbol('cache.entry');
const MISS: Record<string, string> = Object.freeze({ 'x-gw-cache': 'miss' }) as Record<string, string>;

const schema = z.strictObject({
  /** Seconds an entry lives (fractions allowed, for tests). */
  ttl_seconds: z.number().positive().default(300),
});

/** The cache key of a request: SHA-256 hex of its body bytes (chat), with its route and model elsewhere. */
export function cacheKey(rc: Pick<RequestContext, 'route' | 'model' | 'rawBody'>): string {
  // one-shot crypto.hash: no Hash object per request; the same digest as hashing the parts in turn
  return hash('sha256', rc.route === 'chat' ? rc.rawBody : `${rc.route}\n${rc.model}\n${rc.rawBody}`, 'hex');
}

function lookup(store: Store) {
  return async function cacheLookup(rc: RequestContext): Promise<CachedResponse | undefined> {
    if (!rc.cacheable) return undefined;
    const key = cacheKey(rc);
    const body = await store.get(key);
    if (body !== undefined) return { body, headers: { 'x-gw-cache': 'hit', 'x-request-id': rc.id } };
    rc.state.set(ENTRY, key);
    rc.responseHeaders = rc.responseHeaders ? { ...rc.responseHeaders, ...MISS } : MISS;
    return undefined;
  };
}

function remember(store: Store, ttlMs: number) {
  return async function cacheWrite(rc: RequestContext, info: ResponseInfo): Promise<void> {
    const key = rc.state.get(ENTRY) as string | undefined;
    // written before the body goes out (onResponse is awaited), so a hit never races a miss's write
    if (key === undefined || rc.cacheHit || rc.status !== 200 || rc.provider === undefined || info.body === undefined) return;
    await store.set(key, info.body, { ttlMs });
  };
}

export default defineExtension({
  name: PLUGIN_NAME,
  configSchema: schema,
  setup({ config, store, hooks, routes }) {
    hooks.onCacheLookup.tapPromise(PLUGIN_NAME, lookup(store));
    hooks.onResponse.tapPromise(PLUGIN_NAME, remember(store, config.ttl_seconds * 1000));
    routes.delete('/v1/cache', async (ctx) => {
      await store.clear();
      ctx.status = 204;
    });
  },
});
