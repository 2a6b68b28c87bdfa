/**
 * The `usage` extension: prompt and completion tokens per gateway key and canonical model,
 * as the upstream reported them (common semantics), for every route and for streams
 * whether or not the client asked for usage. Committed to the store in onResponse, which
 * the core awaits before the response's last byte: an answered request's usage survives a
 * restart and a crash. Cache hits, early responses and calls that failed before their
 * first byte count no tokens. A stream that ended early after its first byte (the client
 * left, the upstream was cut, a timeout, a mid-stream error) counts what it streamed, from
 * onError (`rc.partial`, core/pipeline/partial.ts): the usage the upstream had reported,
 * else gw's estimate, counted in `estimated_requests` too.
 *
 * Over time: the same numbers per (key, model, provider, UTC hour), plus failed requests
 * (`errors`), kept `retention_days` (default 90; 0 = lifetime totals only). The lifetime
 * counter and the hour bucket are written together (the store batches them: one LevelDB
 * batch, one Redis round trip).
 *
 * Admin: GET /v1/usage → `[{key, model, prompt_tokens, completion_tokens, total_tokens,
 * cached_tokens, cache_write_tokens, reasoning_tokens, cache_hit_rate, requests,
 * estimated_requests}]` (lifetime; `requests` = answered requests and streams charged for
 * what they streamed; `estimated_requests` = those of them whose usage is gw's estimate);
 * with any of `bucket`, `group_by`, `from`, `to` → `[{bucket_start, <group fields>,
 * requests, errors, estimated_requests, prompt_tokens, completion_tokens, total_tokens,
 * cached_tokens, cache_write_tokens, reasoning_tokens, cache_hit_rate}]` where `requests`
 * counts answered and failed requests alike. The parts are the common usage's
 * (`prompt_tokens_details`, `completion_tokens_details`), subsets of the totals;
 * `cache_hit_rate` = cached_tokens / prompt_tokens (null without prompt tokens).
 */
import { z } from 'zod';
import {
  accountOf,
  BUCKETS_KEY,
  cachedTokens,
  cacheHitRate,
  cacheWriteTokens,
  chargeable,
  defineExtension,
  errors,
  type GatewayError,
  HOUR_MS,
  parseSeriesQuery,
  readSeries,
  reasoningTokens,
  type RequestContext,
  SERIES_DISABLED,
  type SeriesShape,
  type Store,
  wantsSeries,
} from 'gw/plugin';

const PLUGIN_NAME = 'usage';
const PREFIX = 'u:';
const DAY_MS = 24 * HOUR_MS;
/** rc.state slot: this request's answer was recorded (a later failing onResponse tap must not count it twice). */
const RECORDED = Symbol('usage.recorded');

const schema = z.strictObject({
  /** Days the hourly buckets are kept; 0 records lifetime totals only. */
  retention_days: z.number().nonnegative().default(90),
});

/** One entry of GET /v1/usage. */
export interface UsageEntry {
  key: string;
  model: string;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** Of `prompt_tokens`, those read from the vendor's prompt cache. */
  cached_tokens: number;
  /** Of `prompt_tokens`, those written to the vendor's prompt cache (every TTL). */
  cache_write_tokens: number;
  /** Of `completion_tokens`, the reasoning (thinking) tokens. */
  reasoning_tokens: number;
  /** cached_tokens / prompt_tokens (0…1, 4 decimals); null without prompt tokens. */
  cache_hit_rate: number | null;
  requests: number;
  /** Of `requests`, the streams that ended early whose usage gw estimated (docs/design.md usage fine print). */
  estimated_requests: number;
}

/** Counter key for a (key name, model) pair; JSON so any model id is safe in it. */
function counterKey(name: string, model: string): string {
  return PREFIX + JSON.stringify([name, model]);
}

const SHAPE: SeriesShape = {
  dims: ['key', 'model', 'provider'],
  fields: (s) => ({
    requests: s.requests ?? 0,
    errors: s.errors ?? 0,
    estimated_requests: s.estimated ?? 0,
    ...tokenFields(s),
  }),
};

/** The token fields of an entry from its summed counters (a counter never written reads 0). */
function tokenFields(c: Record<string, number>) {
  const prompt = c.prompt_tokens ?? 0;
  const completion = c.completion_tokens ?? 0;
  const cached = c.cached_tokens ?? 0;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    cached_tokens: cached,
    cache_write_tokens: c.cache_write_tokens ?? 0,
    reasoning_tokens: c.reasoning_tokens ?? 0,
    cache_hit_rate: cacheHitRate(cached, prompt),
  };
}

function recorder(store: Store, retentionMs: number) {
  const buckets = retentionMs > 0 ? { bucketMs: HOUR_MS, retentionMs } : undefined;
  /** Counts `rc.usage` (an answer, or a stream charged for what it streamed); `failed`: the bucket counts it as an error too. */
  async function record(rc: RequestContext, failed: boolean): Promise<void> {
    const u = rc.usage;
    const account = accountOf(rc);
    const deltas: Record<string, number> = { prompt_tokens: u?.prompt_tokens ?? 0, completion_tokens: u?.completion_tokens ?? 0, requests: 1 };
    // the parts only when there are some: most requests have none, and a missing counter reads 0
    const cached = cachedTokens(u);
    if (cached > 0) deltas.cached_tokens = cached;
    const written = cacheWriteTokens(u);
    if (written > 0) deltas.cache_write_tokens = written;
    const reasoning = reasoningTokens(u);
    if (reasoning > 0) deltas.reasoning_tokens = reasoning;
    if (rc.usageEstimated) deltas.estimated = 1;
    rc.state.set(RECORDED, true);
    const lifetime = store.incr(counterKey(account, rc.servedModel), deltas);
    if (!buckets) return void (await lifetime);
    await Promise.all([
      lifetime,
      store.bucketIncr(BUCKETS_KEY, Date.now(), JSON.stringify([account, rc.servedModel, rc.provider]), failed ? { ...deltas, errors: 1 } : deltas, buckets),
    ]);
  }
  return {
    async answered(rc: RequestContext): Promise<void> {
      if (!chargeable(rc) || rc.operation === 'count') return;
      await record(rc, false);
    },
    async failed(rc: RequestContext, err: GatewayError): Promise<void> {
      // a stream that ended early is charged for what it streamed (once: onError may follow a
      // recorded onResponse); a client that left is not an error of the gateway's
      if (chargeable(rc) && !rc.state.has(RECORDED)) return record(rc, err.status !== 499);
      if (!buckets || err.status === 499) return;
      // a model no provider serves is whatever the client sent: never a series of its own
      const model = errors.MODEL_NOT_FOUND.is(err) ? '' : rc.servedModel;
      const deltas: Record<string, number> = rc.state.has(RECORDED) ? { errors: 1 } : { requests: 1, errors: 1 };
      await store.bucketIncr(BUCKETS_KEY, Date.now(), JSON.stringify([accountOf(rc), model, rc.provider ?? err.provider ?? '']), deltas, buckets);
    },
  };
}

/** Every lifetime usage entry, in (key, model) order. */
export async function listUsage(store: Store): Promise<UsageEntry[]> {
  const out: UsageEntry[] = [];
  for await (const [k, v] of store.entries(PREFIX)) {
    const [key, model] = JSON.parse(k.slice(PREFIX.length)) as [string, string];
    const c = JSON.parse(v) as Record<string, number>;
    out.push({ key, model, ...tokenFields(c), requests: c.requests ?? 0, estimated_requests: c.estimated ?? 0 });
  }
  return out;
}

export default defineExtension({
  name: PLUGIN_NAME,
  configSchema: schema,
  setup({ config, store, hooks, routes, gateway }) {
    const retentionMs = config.retention_days * DAY_MS;
    const rec = recorder(store, retentionMs);
    hooks.onResponse.tapPromise(PLUGIN_NAME, rec.answered);
    hooks.onError.tapPromise(PLUGIN_NAME, rec.failed);
    routes.get('/v1/usage', async (ctx) => {
      let body: unknown;
      if (!wantsSeries(ctx)) body = await listUsage(store);
      else if (retentionMs === 0) throw SERIES_DISABLED({ what: 'usage', extension: 'usage' });
      else body = await readSeries(store, parseSeriesQuery(ctx, SHAPE.dims, retentionMs), SHAPE, gateway);
      ctx.type = 'application/json';
      ctx.body = JSON.stringify(body);
    });
  },
});
