/**
 * The `rate_limit` extension: per key, a one-minute sliding window of requests (one atomic
 * `windowAdmit`) and tokens. Tokens are known once used: streams in flight add their reported
 * usage to an in-memory tally (onChunk, no I/O) that admission counts with the window. Checked
 * at admission only; 429 with `retry-after` (1..60 s). A key's own limits replace the
 * section's; the stream taps stay in place since a key may get a token limit at runtime.
 * MCP tools/call have a window of their own per key (`tool_calls_per_minute`, docs/mcp.md).
 */
import { z } from 'zod';
import { accountOf, chargeable, defineError, defineExtension, type GatewayError, type KeyInfo, OPEN_ACCOUNT, type RequestContext, type Store } from 'gw/plugin';

const PLUGIN_NAME = 'rate_limit';
/** rc.state slot: tokens this request already put in `pending`. */
const TALLY = Symbol('rate_limit.tally');
/** rc.state slot: this request's tokens are in the store's window. */
const RECORDED = Symbol('rate_limit.recorded');

const schema = z.strictObject({
  /** Requests per window of every key that sets none of its own; required (the spec's field). */
  requests_per_minute: z
    .number({ error: (issue) => (issue.input === undefined ? 'required: the requests per minute of every key that sets none of its own' : undefined) })
    .int()
    .positive(),
  /** Default for keys that give none; absent: only keys with their own limit are token-limited. */
  tokens_per_minute: z.number().int().positive().optional(),
  /** MCP tools/call per window of every key that sets none of its own; absent: only keys with their own are limited. */
  tool_calls_per_minute: z.number().int().positive().optional(),
  /** Length of the sliding window in seconds; 60 unless a test needs a shorter one. */
  window_seconds: z.number().positive().max(60).default(60),
});
type Config = z.output<typeof schema>;

interface Tally {
  /** The usage object last counted (identity: the core replaces it when new usage arrives). */
  usage: unknown;
  tokens: number;
}

/** A key's window is full: 429 with `retry-after` in whole seconds (1..60). */
export const RATE_LIMIT_EXCEEDED = defineError<{ key: string; limit: number; what: 'requests' | 'tokens' | 'tool calls'; per: string; seconds: number }>(
  'rate_limit_exceeded',
  429,
  (p) => `rate limit reached for key '${p.key}': ${p.limit} ${p.what} ${p.per}; retry in ${p.seconds} s`,
  { refusal: 'rate_limit' },
);

function refuse(what: 'requests' | 'tokens' | 'tool calls', key: string, limit: number, windowS: number, retryAfterMs: number): GatewayError {
  const seconds = Math.min(60, Math.max(1, Math.ceil(retryAfterMs / 1000)));
  return RATE_LIMIT_EXCEEDED(
    { key, limit, what, per: windowS === 60 ? 'per minute' : `per ${windowS} s`, seconds },
    { headers: { 'retry-after': String(seconds) } },
  );
}

export default defineExtension({
  name: PLUGIN_NAME,
  configSchema: schema,
  keySettings: ['requests_per_minute', 'tokens_per_minute', 'tool_calls_per_minute'],
  setup({ config, store, hooks, routes, gateway }) {
    const windowMs = config.window_seconds * 1000;
    const pending = new Map<string, number>();
    hooks.onRequest.tapPromise(PLUGIN_NAME, admission(config, store, windowMs, pending));
    routes.get('/v1/rate_limit', async (ctx) => {
      const names = gateway.keyNames();
      ctx.type = 'application/json';
      ctx.body = JSON.stringify(
        await Promise.all((names.length ? names : [OPEN_ACCOUNT]).map((name) => windowOf(config, store, windowMs, pending, name, gateway.key(name)))),
      );
    });
    const tpmOf = (rc: RequestContext) => rc.key?.tokensPerMinute ?? config.tokens_per_minute;

    const settle = (rc: RequestContext): Tally | undefined => {
      const t = rc.state.get(TALLY) as Tally | undefined;
      // once only: onError also runs when a later onResponse tap threw after this one settled
      rc.state.delete(TALLY);
      if (t?.tokens) {
        const name = accountOf(rc);
        const left = (pending.get(name) ?? 0) - t.tokens;
        if (left > 0) pending.set(name, left);
        else pending.delete(name);
      }
      return t;
    };
    hooks.onChunk.tap(PLUGIN_NAME, function countStreamTokens(rc) {
      const u = rc.usage;
      if (u === undefined || tpmOf(rc) === undefined) return;
      let t = rc.state.get(TALLY) as Tally | undefined;
      if (t?.usage === u) return;
      if (!t) rc.state.set(TALLY, (t = { usage: u, tokens: 0 }));
      t.usage = u;
      const now = u.prompt_tokens + u.completion_tokens;
      const delta = now - t.tokens;
      if (delta === 0) return;
      t.tokens = now;
      const name = accountOf(rc);
      pending.set(name, (pending.get(name) ?? 0) + delta);
    });
    /** Records the request's tokens in the store's window when it is charged, then takes them out of the tally. */
    async function recordTokens(rc: RequestContext): Promise<void> {
      const u = rc.usage;
      // once: onError also runs when a later onResponse tap threw after this one recorded
      const tokens = u && chargeable(rc) && !rc.state.has(RECORDED) && tpmOf(rc) !== undefined ? u.prompt_tokens + u.completion_tokens : 0;
      // into the store first, then out of the tally: briefly counted twice, never zero times
      if (tokens > 0) {
        rc.state.set(RECORDED, true);
        await store.windowAdd(`t:${accountOf(rc)}`, tokens, windowMs);
      }
      settle(rc);
    }
    hooks.onResponse.tapPromise(PLUGIN_NAME, recordTokens);
    hooks.onError.tapPromise(PLUGIN_NAME, recordTokens);
  },
});

/** One entry of GET /v1/rate_limit. */
export interface WindowEntry {
  key: string;
  window_seconds: number;
  /** Requests admitted in the current window. */
  requests: number;
  /** The key's own limit, else this section's. */
  requests_per_minute: number;
  /** Tokens recorded in the window plus this instance's streams in flight; null without tokens_per_minute. */
  tokens: number | null;
  tokens_per_minute: number | null;
  /** MCP tools/call admitted in the current window; null without tool_calls_per_minute. */
  tool_calls: number | null;
  tool_calls_per_minute: number | null;
}

/** A key's current window, read without recording anything (`cost: 0`). */
async function windowOf(
  config: Config,
  store: Store,
  windowMs: number,
  pending: Map<string, number>,
  name: string,
  key: KeyInfo | undefined,
): Promise<WindowEntry> {
  const rpm = key?.requestsPerMinute ?? config.requests_per_minute;
  const tpm = key?.tokensPerMinute ?? config.tokens_per_minute;
  const cpm = key?.toolCallsPerMinute ?? config.tool_calls_per_minute;
  const peek = (k: string) => store.windowAdmit(k, Number.MAX_SAFE_INTEGER, windowMs, { cost: 0 });
  const [r, t, c] = await Promise.all([
    peek(`r:${name}`),
    tpm === undefined ? undefined : peek(`t:${name}`),
    cpm === undefined ? undefined : peek(`c:${name}`),
  ]);
  return {
    key: name,
    window_seconds: config.window_seconds,
    requests: r.total,
    requests_per_minute: rpm,
    tokens: t ? t.total + (pending.get(name) ?? 0) : null,
    tokens_per_minute: tpm ?? null,
    tool_calls: c ? c.total : null,
    tool_calls_per_minute: cpm ?? null,
  };
}

function admission(config: Config, store: Store, windowMs: number, pending: Map<string, number>) {
  return async function rateLimit(rc: RequestContext): Promise<undefined> {
    const name = accountOf(rc);
    const key = rc.key;
    if (rc.operation === 'tool') {
      // a window of their own: tool calls never spend the key's requests or tokens
      const cpm = key?.toolCallsPerMinute ?? config.tool_calls_per_minute;
      if (cpm === undefined) return undefined;
      const v = await store.windowAdmit(`c:${name}`, cpm, windowMs);
      if (!v.admitted) throw refuse('tool calls', name, cpm, config.window_seconds, v.retryAfterMs);
      return undefined;
    }
    const tpm = key?.tokensPerMinute ?? config.tokens_per_minute;
    const rpm = key?.requestsPerMinute ?? config.requests_per_minute;
    if (tpm !== undefined) {
      // check only (cost 0): tokens are recorded when they are known
      const v = await store.windowAdmit(`t:${name}`, tpm, windowMs, { cost: 0, pending: pending.get(name) ?? 0 });
      if (!v.admitted) throw refuse('tokens', name, tpm, config.window_seconds, v.retryAfterMs);
    }
    const v = await store.windowAdmit(`r:${name}`, rpm, windowMs);
    if (!v.admitted) throw refuse('requests', name, rpm, config.window_seconds, v.retryAfterMs);
    return undefined;
  };
}
