/**
 * The `usage` extension: tokens per key and canonical model as upstreams reported them, every
 * route, committed in onResponse before the last byte; an early-ended stream counts what it
 * streamed (`estimated_requests`); cache hits and failures before the first byte count none.
 * Per (key, model, provider, UTC hour) too, failures and their codes included, kept
 * `retention_days`; latency: latency.ts. Routes and fields: docs/extensions.md, docs/console.md.
 * MCP tools/call carry no tokens: a series of their own per (key, server, tool, hour): tools.ts.
 */
import type { Context } from 'koa';
import { z } from 'zod';
import {
  accountOf,
  badQuery,
  BUCKETS_KEY,
  cachedTokens,
  cacheHitRate,
  cacheWriteTokens,
  chargeable,
  defineExtension,
  errors,
  type FinishedRequest,
  type GatewayError,
  type GatewayInfo,
  OPEN_ACCOUNT,
  parseSeriesQuery,
  readSeries,
  reasoningTokens,
  type RequestContext,
  type SeriesShape,
  type Store,
  wantsSeries,
} from 'gw/plugin';
import { HOUR_MS, LATENCY_HOURS_KEY, LATENCY_MINUTES_KEY, LATENCY_SHAPE, LatencyRecorder, MINUTE_MS } from './latency.ts';
import { recordToolCall, TOOL_SHAPE, TOOLS_KEY, wantsTools } from './tools.ts';

const PLUGIN_NAME = 'usage';
const PREFIX = 'u:';
const DAY_MS = 24 * HOUR_MS;
/** rc.state slot: this request's answer was recorded (a later failing onResponse tap must not count it twice). */
const RECORDED = Symbol('usage.recorded');
/** rc.state slot: onError counted this request's failure (onFinish must not count it again). */
const ERROR_COUNTED = Symbol('usage.errorCounted');
/** Key name under which requests refused for their credentials (401: no key accepted) count. */
export const UNAUTHENTICATED = '(unauthenticated)';

const schema = z.strictObject({
  /** Days the hourly buckets are kept; 0 records lifetime totals only. */
  retention_days: z.number().nonnegative().default(90),
  /** Latency percentiles per (model, provider) over time (latency.ts); false keeps none. */
  latency: z.boolean().default(true),
  /** Hours the per-minute latency buckets are kept (hour buckets follow retention_days); 0 keeps none. */
  latency_minutes_hours: z.number().nonnegative().max(168).default(6),
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
  fields: (s) => {
    // errors by gw's error code (catalog codes; `http_<status>` for an answer without one)
    const codes: Record<string, number> = {};
    for (const f in s) if (f.startsWith(CODE)) codes[f.slice(CODE.length)] = s[f]!;
    return {
      requests: s.requests ?? 0,
      errors: s.errors ?? 0,
      estimated_requests: s.estimated ?? 0,
      ...tokenFields(s),
      error_codes: codes as unknown as number,
    };
  },
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

/** Counter field prefix of errors by code in the hour buckets. */
const CODE = 'e:';
/** The deltas of one failure: `errors` and its code's counter (plus `requests` when nothing counted the request yet). */
function errorDeltas(err: GatewayError | undefined, status: number, counted: boolean): Record<string, number> {
  const deltas: Record<string, number> = counted ? { errors: 1 } : { requests: 1, errors: 1 };
  deltas[CODE + (err?.code ?? `http_${status}`)] = 1;
  return deltas;
}

function recorder(store: Store, retentionMs: number, gateway: GatewayInfo, onFail: (err: Error) => void) {
  const buckets = retentionMs > 0 ? { bucketMs: HOUR_MS, retentionMs } : undefined;
  const pending = new Set<Promise<unknown>>();
  // models routable now, for refusals whose model was never resolved (refreshed at most once a second)
  let known: Set<string> | undefined;
  let knownAt = 0;
  const servedModel = (model: string | undefined): string => {
    if (model === undefined) return '';
    const now = Date.now();
    if (!known || now - knownAt > 1000) {
      known = new Set(gateway.models());
      knownAt = now;
    }
    const canonical = gateway.resolveModel(model);
    return known.has(canonical) ? canonical : '';
  };
  /** Counts `rc.usage` (an answer, or a stream charged for what it streamed); `failed`: the bucket counts it as an error too. */
  async function record(rc: RequestContext, failed: GatewayError | undefined): Promise<void> {
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
    if (failed) rc.state.set(ERROR_COUNTED, true);
    await Promise.all([
      lifetime,
      store.bucketIncr(
        BUCKETS_KEY,
        gateway.now(),
        JSON.stringify([account, rc.servedModel, rc.provider]),
        failed ? { ...deltas, ...errorDeltas(failed, failed.status, true) } : deltas,
        buckets,
      ),
    ]);
  }
  return {
    async answered(rc: RequestContext): Promise<void> {
      if (rc.operation === 'tool') return recordToolCall(store, buckets, rc, gateway.now());
      if (!chargeable(rc) || rc.operation === 'count') return;
      await record(rc, undefined);
    },
    async failed(rc: RequestContext, err: GatewayError): Promise<void> {
      if (rc.operation === 'tool') return recordToolCall(store, buckets, rc, gateway.now());
      // a stream that ended early is charged for what it streamed (once: onError may follow a
      // recorded onResponse); a client that left is not an error of the gateway's
      if (chargeable(rc) && !rc.state.has(RECORDED)) return record(rc, err.status !== 499 ? err : undefined);
      if (!buckets || err.status === 499) return;
      // a model no provider serves is whatever the client sent: never a series of its own
      const model = errors.MODEL_NOT_FOUND.is(err) ? '' : rc.servedModel;
      const deltas = errorDeltas(err, err.status, rc.state.has(RECORDED));
      rc.state.set(ERROR_COUNTED, true);
      await store.bucketIncr(BUCKETS_KEY, gateway.now(), JSON.stringify([accountOf(rc), model, rc.provider ?? err.provider ?? '']), deltas, buckets);
    },
    /** Counts a failure onError never saw (refused before admission: 401, 400, 413, 415), in the background. */
    finished(f: FinishedRequest): void {
      if (!buckets || f.rc?.operation === 'tool' || f.status < 400 || f.status === 499 || f.rc?.state.has(ERROR_COUNTED)) return;
      const account = f.rc ? accountOf(f.rc) : (f.key?.name ?? (f.status === 401 ? UNAUTHENTICATED : OPEN_ACCOUNT));
      const model = f.rc && !errors.MODEL_NOT_FOUND.is(f.error) ? f.rc.servedModel : servedModel(f.model);
      const deltas = errorDeltas(f.error, f.status, f.rc?.state.has(RECORDED) === true);
      const p = store
        .bucketIncr(BUCKETS_KEY, gateway.now(), JSON.stringify([account, model, f.rc?.provider ?? f.error?.provider ?? '']), deltas, buckets)
        .catch(onFail);
      pending.add(p);
      void p.finally(() => pending.delete(p));
    },
    /** Waits for the background writes. */
    async close(): Promise<void> {
      await Promise.all(pending);
    },
  };
}

/** `metrics`: which series GET /v1/usage serves (`usage`, the default, or `latency`). */
function metricsOf(ctx: Context): 'usage' | 'latency' {
  const m = ctx.query.metrics;
  if (m === undefined || m === 'usage') return 'usage';
  if (m === 'latency') return 'latency';
  throw badQuery('metrics', "must be 'usage' or 'latency'", String(m));
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
  setup({ config, store, hooks, routes, gateway, log }) {
    const retentionMs = config.retention_days * DAY_MS;
    const minuteRetentionMs = config.latency_minutes_hours * HOUR_MS;
    let lastWarn = 0;
    const onFail = (err: Error) => {
      if (Date.now() - lastWarn < 10_000) return;
      lastWarn = Date.now();
      log.warn({ err: err.message }, 'usage: could not write counters (more failures in the next 10 s are not logged)');
    };
    const rec = recorder(store, retentionMs, gateway, onFail);
    const latency =
      retentionMs > 0 && config.latency
        ? new LatencyRecorder(store, { bucketMs: HOUR_MS, retentionMs }, minuteRetentionMs, () => gateway.now(), onFail)
        : undefined;
    hooks.onResponse.tapPromise(PLUGIN_NAME, rec.answered);
    hooks.onError.tapPromise(PLUGIN_NAME, rec.failed);
    hooks.onFinish.tap(PLUGIN_NAME, (f: FinishedRequest) => {
      rec.finished(f);
      // tool calls have latency series of their own (the MCP gateway's): these are the models'
      if (f.rc?.operation !== 'tool') latency?.observe(f);
    });
    routes.get('/v1/usage', async (ctx) => {
      let body: unknown;
      const metrics = metricsOf(ctx);
      if (metrics === 'usage' && !wantsSeries(ctx)) body = await listUsage(store);
      else if (retentionMs === 0) throw errors.SERIES_DISABLED({ what: metrics, extension: 'usage' });
      else if (metrics === 'latency' && !config.latency)
        throw errors.INVALID_QUERY('latency over time is off: [extensions.usage] latency = false', { param: 'metrics' });
      else if (metrics === 'usage' && wantsTools(ctx))
        body = await readSeries(store, parseSeriesQuery(ctx, TOOL_SHAPE.dims, retentionMs, gateway.now()), TOOL_SHAPE, gateway, {
          key: TOOLS_KEY,
          bucketMs: HOUR_MS,
        });
      else if (metrics === 'usage') body = await readSeries(store, parseSeriesQuery(ctx, SHAPE.dims, retentionMs, gateway.now()), SHAPE, gateway);
      else {
        const q = parseSeriesQuery(ctx, LATENCY_SHAPE.dims, retentionMs, gateway.now(), minuteRetentionMs > 0 ? minuteRetentionMs : undefined);
        const source = q.bucket === 'minute' ? { key: LATENCY_MINUTES_KEY, bucketMs: MINUTE_MS } : { key: LATENCY_HOURS_KEY, bucketMs: HOUR_MS };
        body = await readSeries(store, q, LATENCY_SHAPE, gateway, source);
      }
      ctx.type = 'application/json';
      ctx.body = JSON.stringify(body);
    });
    return {
      async close() {
        await Promise.all([rec.close(), latency?.close()]);
      },
    };
  },
});
