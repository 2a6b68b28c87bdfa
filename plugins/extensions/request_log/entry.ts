/**
 * A request log entry from a finished request (onFinish): pure, never a secret. The error's
 * message as the client got it only with bodies; else the log-safe one.
 */
import {
  cachedTokens,
  cacheWriteTokens,
  chargedUsage,
  cutText,
  type FinishedRequest,
  GUARDRAILS,
  type GuardrailOutcome,
  MAX_MODEL_CHARS,
  MCP_CALL,
  type McpCall,
  type McpOutcome,
  messageForStores,
  reasoningTokens,
} from 'gw/plugin';

/** A request's cost by part, USD (rounded to 1e-9): what `cost_usd` is the sum of. */
export interface CostParts {
  /** Uncached input. */
  input: number;
  /** Cache reads. */
  cached_input: number;
  /** Cache writes, every TTL. */
  cache_write: number;
  /** Output, reasoning included unless the price gives reasoning its own rate. */
  output: number;
  /** Reasoning output at its own rate; 0 when it is priced as output. */
  reasoning: number;
}

/** One entry of GET /v1/requests. */
export interface LogEntry {
  /** Arrival, RFC 3339 (UTC, ms). */
  time: string;
  request_id: string;
  /** Key name; `(open)` on a gateway without keys; null when no key was accepted (401). */
  key: string | null;
  route: string;
  /** `model` as the client sent it; null when the body was not read; past 256 characters cut, `…`, and named in `truncated`. */
  model: string | null;
  /** The canonical model that answered (a `[fallbacks]` model when one took over); null when none did. */
  served_model: string | null;
  /** The provider that answered, or for a failure the provider whose attempt failed last; null for refusals and cache hits. */
  provider: string | null;
  /** HTTP status sent (499: the client left; a stream's error status when it failed mid-way). */
  status: number;
  /** Upstream calls made, retries and fallbacks included. */
  attempts: number;
  stream: boolean;
  /** Arrival to last byte, ms. */
  latency_ms: number;
  /** Arrival to first byte, ms (= latency for a JSON answer). */
  ttfb_ms: number;
  /** gw's own time: latency_ms minus upstream_ms (all of latency_ms when no upstream was called). */
  overhead_ms: number;
  /** Ms waiting for upstreams (every attempt, backoff and fallback, a stream to its last event); null when none was called. */
  upstream_ms: number | null;
  /** The usage charged, as /v1/usage and /v1/budget count it (`chargedUsage`); null when none. */
  prompt_tokens: number | null;
  completion_tokens: number | null;
  /** The parts of that usage (null with it): cache reads, cache writes, reasoning. */
  cached_tokens: number | null;
  cache_write_tokens: number | null;
  reasoning_tokens: number | null;
  /** What that usage cost, USD, as the budget charges it (`rc.cost`); null when unpriced or uncharged. */
  cost_usd: number | null;
  /** `cost_usd` by part; null when `cost_usd` is. */
  cost: CostParts | null;
  /** True when the usage is gw's estimate: a stream that ended early before the upstream counted its output. */
  usage_estimated: boolean;
  cache_hit: boolean;
  /** The request's trace (32 hex digits) when a tracing extension (otel) named it; null otherwise. */
  trace_id: string | null;
  /** gw's error code, from the catalog (docs/design.md "Errors"): an upstream 5xx is `upstream_error` on every provider kind. */
  error_code: string | null;
  error_message: string | null;
  /** For a failure the upstream answered: the HTTP status it answered with; null otherwise. */
  upstream_status: number | null;
  /** For a failure the upstream answered: its own error code (`server_error`, `overloaded_error`, `INTERNAL`…) when gw's differs; null otherwise. */
  upstream_code: string | null;
  /** The fields kept cut because the client sent them past their bound (`["model"]`); empty for most entries. */
  truncated: string[];
  /** An MCP tools/call (`route` = `mcp`, docs/mcp.md): its server and the tool's own name; null for other requests. */
  mcp_server: string | null;
  tool: string | null;
  /** How an MCP tools/call ended (`ok`, `tool_error`, `upstream_error`, `denied`, `limited`); null for other requests. */
  outcome: McpOutcome | null;
  /** What the guardrails checks did (docs/guardrails.md): check, phase, action, entity type and count, never the text; empty for most entries. */
  guardrails: GuardrailOutcome[];
  /** With `log_bodies = true` only, cut to `body_max_bytes`. */
  request_body?: string | null;
  response_body?: string | null;
}

/** Key name shown for requests on a gateway that runs without keys. */
export const OPEN_KEY = '(open)';
const MESSAGE_MAX = 2000;
/** `truncated` of an entry that kept its model cut, the one field a client can send past its bound. */
const MODEL_CUT = ['model'];
const NONE_CUT: string[] = [];

const ms = (v: number): number => Math.round(v * 100) / 100;
const usd = (v: number): number => Math.round(v * 1e9) / 1e9;

/** `s` cut to at most `max` UTF-8 bytes, marked when cut. */
export function truncate(s: string, max: number): string {
  if (s.length <= max / 3 || Buffer.byteLength(s) <= max) return s;
  const cut = Buffer.from(s)
    .subarray(0, max)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  return `${cut}…[truncated]`;
}

function tokens(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null;
}

/**
 * The stored row's field order: a JSON array (half an object's bytes), `time` as epoch ms. New
 * fields go after the bodies so older rows stay readable (no bodies: `0` in their slots).
 */
const FIELDS = [
  'time',
  'request_id',
  'key',
  'route',
  'model',
  'served_model',
  'provider',
  'status',
  'attempts',
  'stream',
  'latency_ms',
  'ttfb_ms',
  'overhead_ms',
  'upstream_ms',
  'prompt_tokens',
  'completion_tokens',
  'cost_usd',
  'cache_hit',
  'error_code',
  'error_message',
  'request_body',
  'response_body',
  'usage_estimated',
  'trace_id',
  'cost',
  'upstream_status',
  'upstream_code',
  'cached_tokens',
  'cache_write_tokens',
  'reasoning_tokens',
  'truncated',
  'mcp_server',
  'tool',
  'outcome',
  'guardrails',
] as const;
const BODIES_AT = 20;
const ESTIMATED_AT = 22;
const TRACE_AT = 23;
const COST_AT = 24;
const UPSTREAM_STATUS_AT = 25;
const UPSTREAM_CODE_AT = 26;
const TOKEN_PARTS_AT = 27;
const TRUNCATED_AT = 30;
const MCP_AT = 31;
const GUARDRAILS_AT = 34;
const NO_OUTCOMES: GuardrailOutcome[] = [];

/** The stored row for a finished request (one array); `open`: gw runs without keys; `bodies`: both, already cut. */
export function toRow(f: FinishedRequest, open: boolean, bodies?: [string | null, string | null]): unknown[] {
  const rc = f.rc;
  const err = f.error;
  const answered = rc !== undefined && (rc.provider !== undefined || rc.cacheHit);
  // what every accounting view charged: a usage report from a request that failed before its first byte is not it
  const u = rc === undefined ? undefined : chargedUsage(rc);
  const prompt = tokens(u?.prompt_tokens);
  const completion = tokens(u?.completion_tokens);
  const upstream = rc !== undefined && rc.attempts > 0 ? rc.upstreamMs : undefined;
  // an MCP tools/call: no tokens, its price is its cost (set once the tool answered)
  const call = rc?.operation === 'tool' ? (rc.state.get(MCP_CALL) as McpCall | undefined) : undefined;
  // the core priced the charged usage once (rc.cost); a request charged nothing has none
  const c = u === undefined && call === undefined ? undefined : rc?.cost;
  const cost = c ? usd(c.total) : null;
  // a tool call's price has no token parts
  const parts: CostParts | undefined =
    c && !call
      ? { input: usd(c.input), cached_input: usd(c.cached_input), cache_write: usd(c.cache_write), output: usd(c.output), reasoning: usd(c.reasoning) }
      : undefined;
  const model = f.model === undefined ? null : cutText(f.model, MAX_MODEL_CHARS);
  const modelCut = model !== null && model !== f.model;
  const message = err ? messageForStores(err, bodies !== undefined) : null;
  const row: unknown[] = [
    Math.round(f.time),
    f.id,
    f.key?.name ?? (open ? OPEN_KEY : null),
    f.route,
    model,
    answered ? rc!.servedModel : null,
    rc?.provider ?? err?.provider ?? null,
    f.status,
    rc?.attempts ?? 0,
    rc?.stream ?? false,
    ms(f.totalMs),
    ms(f.ttfbMs),
    ms(Math.max(0, f.totalMs - (upstream ?? 0))),
    upstream === undefined ? null : ms(upstream),
    prompt,
    completion,
    cost,
    rc?.cacheHit ?? false,
    err ? (err.code ?? `http_${err.status}`) : f.status >= 400 ? `http_${f.status}` : null,
    message === null ? null : cutText(message, MESSAGE_MAX),
  ];
  const upstreamFailed = err?.upstreamStatus !== undefined || err?.upstreamCode !== undefined;
  const cached = cachedTokens(u);
  const written = cacheWriteTokens(u);
  const reasoning = reasoningTokens(u);
  const tokenParts = cached > 0 || written > 0 || reasoning > 0;
  // the fields after the first 20 go as far as the last one this row needs (the slots before
  // it hold their empty values): most rows stay as short as before
  let upTo = 0;
  if (bodies) upTo = BODIES_AT;
  if (rc?.usageEstimated) upTo = ESTIMATED_AT;
  if (f.traceId !== undefined) upTo = TRACE_AT;
  if (parts !== undefined) upTo = COST_AT;
  if (upstreamFailed) upTo = UPSTREAM_STATUS_AT;
  if (tokenParts) upTo = TOKEN_PARTS_AT;
  if (modelCut) upTo = TRUNCATED_AT;
  if (call) upTo = MCP_AT;
  const guarded = rc?.state.get(GUARDRAILS) as readonly GuardrailOutcome[] | undefined;
  if (guarded !== undefined && guarded.length > 0) upTo = GUARDRAILS_AT;
  if (upTo >= BODIES_AT) row.push(bodies ? bodies[0] : 0, bodies ? bodies[1] : 0);
  if (upTo >= ESTIMATED_AT) row.push(rc?.usageEstimated === true);
  if (upTo >= TRACE_AT) row.push(f.traceId ?? null);
  if (upTo >= COST_AT) row.push(parts ?? null);
  if (upTo >= UPSTREAM_STATUS_AT) row.push(err?.upstreamStatus ?? null, err?.upstreamCode ?? null);
  // a tool call has no tokens: its parts read null, not 0
  if (upTo >= TOKEN_PARTS_AT) row.push(call && !tokenParts ? null : cached, call && !tokenParts ? null : written, call && !tokenParts ? null : reasoning);
  if (upTo >= TRUNCATED_AT) row.push(modelCut ? MODEL_CUT : null);
  // a tool no server has: its name (the client's) is in `model` alone
  if (upTo >= MCP_AT) row.push(call?.server || null, call?.server ? call.tool : null, call?.outcome ?? null);
  if (upTo >= GUARDRAILS_AT) row.push(guarded);
  return row;
}

/** The entry of a stored row (GET /v1/requests); bodies only when they were logged. */
export function fromRow(row: unknown[]): LogEntry {
  const e: Record<string, unknown> = {};
  const n = Math.min(row.length, BODIES_AT);
  for (let i = 0; i < n; i++) e[FIELDS[i]!] = row[i];
  e.time = new Date(row[0] as number).toISOString();
  // rows written before every request had an overhead: it was all gw's time when no upstream answered
  if (e.overhead_ms === null) e.overhead_ms = e.latency_ms;
  e.usage_estimated = row[ESTIMATED_AT] === true;
  e.trace_id = typeof row[TRACE_AT] === 'string' ? row[TRACE_AT] : null;
  e.cost = typeof row[COST_AT] === 'object' ? row[COST_AT] : null;
  e.upstream_status = typeof row[UPSTREAM_STATUS_AT] === 'number' ? row[UPSTREAM_STATUS_AT] : null;
  e.upstream_code = typeof row[UPSTREAM_CODE_AT] === 'string' ? row[UPSTREAM_CODE_AT] : null;
  // a row without token parts had none: 0 when the request was charged a usage, null when not
  const charged = e.prompt_tokens !== null || e.completion_tokens !== null;
  for (let i = 0; i < 3; i++) {
    const v = row[TOKEN_PARTS_AT + i];
    e[FIELDS[TOKEN_PARTS_AT + i]!] = typeof v === 'number' ? v : charged ? 0 : null;
  }
  e.truncated = Array.isArray(row[TRUNCATED_AT]) ? row[TRUNCATED_AT] : NONE_CUT;
  e.mcp_server = typeof row[MCP_AT] === 'string' ? row[MCP_AT] : null;
  e.tool = typeof row[MCP_AT + 1] === 'string' ? row[MCP_AT + 1] : null;
  e.outcome = typeof row[MCP_AT + 2] === 'string' ? row[MCP_AT + 2] : null;
  e.guardrails = Array.isArray(row[GUARDRAILS_AT]) ? row[GUARDRAILS_AT] : NO_OUTCOMES;
  if (row.length > BODIES_AT && typeof row[BODIES_AT] !== 'number') {
    e.request_body = row[BODIES_AT];
    e.response_body = row[BODIES_AT + 1];
  }
  return e as unknown as LogEntry;
}
