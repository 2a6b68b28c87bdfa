/**
 * One trace per gateway request, taps of the SDK's hooks:
 *
 *   onArrival        SERVER span `{method} {route}`, child of the client's `traceparent`
 *                    (W3C; `tracestate` kept); its trace id answers in `x-gw-trace-id`
 *   onUpstreamStart  CLIENT span `{gen_ai.operation.name} {gen_ai.request.model}` per attempt,
 *                    child of the server span; the upstream gets its `traceparent`
 *   onUpstreamEnd    a failed attempt's span ends with its error; the answering one stays
 *                    open until the answer is over (a stream's last event)
 *   onChunk          a stream's response id, model and finish reasons (and its text with
 *                    capture_content) from chunk.content(), only while the trace is sampled;
 *                    a chunk that can tell none of them is not parsed (chunk.mightFinish)
 *   onResponse       the same from a whole answer's body
 *   onFinish         usage, cost, first-token time, the end or the failure; both spans end;
 *                    the GenAI metrics are recorded (sampled or not)
 *
 * An MCP tools/call (route `mcp`) is a request of its own: its spans are named and described
 * as the GenAI MCP conventions say (mcp.ts), its parent is the trace context the client put in
 * `params._meta` (the MCP gateway hands it over as the arriving request's `traceparent`).
 *
 * Nothing here touches the request's answer but the trace header, and no tap throws into it.
 */
import { type Attributes, defaultTextMapGetter, ROOT_CONTEXT, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { ATTR_ERROR_TYPE, ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_HTTP_ROUTE } from '@opentelemetry/semantic-conventions';
import {
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_ID,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK,
  ATTR_GEN_AI_SYSTEM_INSTRUCTIONS,
  ATTR_GEN_AI_TOKEN_TYPE,
  ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS,
  GEN_AI_TOKEN_TYPE_VALUE_INPUT,
  GEN_AI_TOKEN_TYPE_VALUE_OUTPUT,
} from '@opentelemetry/semantic-conventions/incubating';
import {
  type ArrivingRequest,
  type Chunk,
  cutText,
  type FinishedRequest,
  GatewayError,
  GUARDRAILS,
  type GuardrailOutcome,
  type Hooks,
  isModelRefusal,
  MAX_MODEL_CHARS,
  messageForStores,
  type RequestContext,
  type ResponseInfo,
  type UpstreamAttempt,
  type Usage,
} from 'gw/plugin';
import { markCut, STATUS_MESSAGE_MAX_CHARS, setBounded } from './bounded.ts';
import type { OtelSettings } from './config.ts';
import { inputContent, outputContent, StreamText } from './content.ts';
import { providerName, requestAttributes, ResponseFacts } from './genai.ts';
import { AttributeLayout } from './histograms.ts';
import { mcpAttributes, mcpCallOf, TOOLS_CALL } from './mcp.ts';
import type { GenAiMetrics } from './metrics.ts';
import type { SpanAccount } from './span-account.ts';
import { attributeSet, GwSpan, type SpanFactory, type TraceSpan, traceHeaders } from './span.ts';

/** gw's own attributes (no convention names these). */
export const GW = {
  route: 'gw.route',
  requestId: 'gw.request_id',
  key: 'gw.key',
  model: 'gw.model',
  servedModel: 'gw.served_model',
  provider: 'gw.provider',
  attempt: 'gw.attempt',
  retry: 'gw.retry',
  fallback: 'gw.fallback',
  attempts: 'gw.attempts',
  cacheHit: 'gw.cache_hit',
  costUsd: 'gw.cost_usd',
  overheadMs: 'gw.overhead_ms',
  upstreamMs: 'gw.upstream_ms',
  usageEstimated: 'gw.usage_estimated',
  /** The guardrail checks that found something (docs/guardrails.md), as `x-gw-guardrails` names them. */
  guardrails: 'gw.guardrails',
} as const;

/** Span events of a stream (on the client span of the answering attempt). */
export const EVENTS = { firstToken: 'gw.stream.first_token', end: 'gw.stream.end', failure: 'gw.stream.error', firstByte: 'gw.stream.first_byte' } as const;

/** Second parts of span names kept per first part (RequestTracer.nameOf). */
const NAME_PARTS = 1000;

/** The metrics' attributes per upstream attempt (operation duration) and per request (gw as a GenAI server), in the order record() takes their values. */
const ATTEMPT = new AttributeLayout([
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_ERROR_TYPE,
]);
const TOKENS = new AttributeLayout([...ATTEMPT.keys, ATTR_GEN_AI_TOKEN_TYPE]);
const SERVER = new AttributeLayout([
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_ERROR_TYPE,
]);

/**
 * `gen_ai.request.model` of the server metrics for a request refused for its model (404, 403):
 * the conventions' value for "any other" (as `error.type` has it).
 */
const OTHER_MODEL = '_OTHER';

/** rc.state slot of a request's trace. */
const TRACE = Symbol('otel.trace');

/** What one request's trace holds while it runs. */
interface RequestTrace {
  /** The parent of every attempt's span. */
  readonly server: TraceSpan;
  readonly sampled: boolean;
  /** Whether its spans go to the recent list (SpanAccount.admitRecent). */
  readonly recent: boolean;
  /** The attempt running now (attempts run one at a time) and its span. */
  attempt: UpstreamAttempt | undefined;
  span: TraceSpan | undefined;
  /** The attempt that answered, its span still open until the answer is over. */
  winner: UpstreamAttempt | undefined;
  winnerSpan: TraceSpan | undefined;
  facts: ResponseFacts | undefined;
  text: StreamText | undefined;
  output: string | undefined;
  /** The whole answer's content was cut to its bound. */
  outputCut: boolean;
}

const propagator = new W3CTraceContextPropagator();

/** Each check that found something, once, in the order first seen. */
function checkNames(outcomes: readonly GuardrailOutcome[]): string[] {
  const names: string[] = [];
  for (const outcome of outcomes) if (!names.includes(outcome.check)) names.push(outcome.check);
  return names;
}

/** The taps (see the file comment). */
export class RequestTracer {
  private readonly spans: SpanFactory;
  private readonly s: OtelSettings;
  private readonly metrics: GenAiMetrics | undefined;
  private readonly account: SpanAccount;
  /** Captured content as gw stores it (`secrets.stored`: through the guardrails' detectors with redact_stored). */
  private readonly stored: (text: string) => string;
  /** Span names by their two parts (NAME_PARTS at most per first part). */
  private readonly names = new Map<string, Map<string, string>>();

  constructor(spans: SpanFactory, s: OtelSettings, metrics: GenAiMetrics | undefined, account: SpanAccount, stored: (text: string) => string = (text) => text) {
    this.spans = spans;
    this.s = s;
    this.metrics = metrics;
    this.account = account;
    this.stored = stored;
  }

  /** Taps every hook the trace follows (see the file comment) under `name`. */
  tap(hooks: Hooks, name: string): void {
    hooks.onArrival.tap(name, (a) => this.arrival(a));
    hooks.onUpstreamStart.tap(name, (rc, at) => this.upstreamStart(rc, at));
    hooks.onUpstreamEnd.tap(name, (rc, at) => this.upstreamEnd(rc, at));
    hooks.onChunk.tap(name, (rc, chunk) => this.chunk(rc, chunk));
    // a sync tap on the async hook: no promise of its own per request
    hooks.onResponse.tap(name, (rc, info) => this.response(rc, info));
    hooks.onFinish.tap(name, (f) => this.finish(f));
  }

  arrival(a: ArrivingRequest): void {
    const parent = a.headers.traceparent === undefined ? ROOT_CONTEXT : propagator.extract(ROOT_CONTEXT, a.headers, defaultTextMapGetter);
    const call = a.route === 'mcp' ? mcpCallOf(a.state) : undefined;
    const name = call ? this.nameOf(TOOLS_CALL, call.name) : this.nameOf(a.method, a.path);
    const server = this.spans.startTrace(parent, name, SpanKind.SERVER, a.time);
    // an unsampled trace's span is its context alone (span.ts ContextSpan): nothing built for it
    const sampled = server instanceof GwSpan;
    if (sampled) {
      const attributes = server.attributes;
      attributes[ATTR_HTTP_REQUEST_METHOD] = a.method;
      attributes[ATTR_HTTP_ROUTE] = a.path;
      attributes[GW.route] = a.route;
      attributes[GW.requestId] = a.id;
      if (call) mcpAttributes(attributes, call, call.name);
    }
    const recent = sampled && this.account.admitRecent(a.time);
    if (recent) this.account.markRecent(server);
    const t: RequestTrace = {
      server,
      sampled,
      recent,
      attempt: undefined,
      span: undefined,
      winner: undefined,
      winnerSpan: undefined,
      facts: undefined,
      text: undefined,
      output: undefined,
      outputCut: false,
    };
    a.state.set(TRACE, t);
    a.traceId = server.spanContext().traceId;
    if (this.s.traceHeader) a.setHeader(this.s.traceHeader, a.traceId);
  }

  upstreamStart(rc: RequestContext, at: UpstreamAttempt): void {
    const t = rc.state.get(TRACE) as RequestTrace | undefined;
    if (!t) return;
    const call = rc.operation === 'tool' ? mcpCallOf(rc.state) : undefined;
    let attributes: Attributes | undefined;
    if (t.sampled && call) {
      attributes = attributeSet();
      mcpAttributes(attributes, call, call.tool);
      attributes[GW.provider] = at.provider;
    } else if (t.sampled) {
      // the request's attributes, built into each attempt's own set: a retry builds them again
      // (rare), where keeping them to copy cost every request a second set
      attributes = requestAttributes(rc);
      attributes[ATTR_GEN_AI_PROVIDER_NAME] = providerName(at.kind);
      attributes[ATTR_GEN_AI_REQUEST_MODEL] = at.model;
      attributes[GW.provider] = at.provider;
      attributes[GW.attempt] = at.number;
      attributes[GW.retry] = at.retry;
      attributes[GW.fallback] = at.fallback;
    }
    const name = call ? this.nameOf(TOOLS_CALL, call.tool) : this.nameOf(rc.operationName, at.model);
    const span = this.spans.startChild(t.server, name, SpanKind.CLIENT, epoch(at.startedAt), attributes);
    if (t.recent) this.account.markRecent(span);
    t.attempt = at;
    t.span = span;
    at.headers = traceHeaders(span);
  }

  upstreamEnd(rc: RequestContext, at: UpstreamAttempt): void {
    const t = rc.state.get(TRACE) as RequestTrace | undefined;
    if (!t || t.attempt !== at || !t.span) return;
    const span = t.span;
    t.attempt = undefined;
    t.span = undefined;
    if (at.outcome === 'ok') {
      t.winner = at;
      t.winnerSpan = span;
      return;
    }
    const code = errorType(at.error);
    if (t.sampled) {
      span.setAttribute(ATTR_ERROR_TYPE, code);
      span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(at.error) });
    }
    span.end(epoch(at.endedAt));
    this.metrics?.operationDuration.record((at.endedAt - at.startedAt) / 1000, ATTEMPT, rc.operationName, providerName(at.kind), at.model, undefined, code);
  }

  chunk(rc: RequestContext, chunk: Chunk): void {
    const t = rc.state.get(TRACE) as RequestTrace | undefined;
    if (!t?.sampled) return;
    const facts = (t.facts ??= new ResponseFacts());
    if (this.s.captureContent) {
      const event = chunk.content();
      facts.event(event);
      (t.text ??= new StreamText(this.s.contentMaxChars)).event(event);
    } else if (facts.wants(chunk)) facts.event(chunk.content());
  }

  response(rc: RequestContext, info: ResponseInfo): void {
    const t = rc.state.get(TRACE) as RequestTrace | undefined;
    if (!t?.sampled || info.body === undefined || !t.winnerSpan || rc.status >= 400) return;
    // parsed only when the kernel did not parse the answer itself (a translated answer)
    const answer = info.content();
    if (answer === undefined) return;
    (t.facts ??= new ResponseFacts()).answer(answer);
    if (this.s.captureContent) {
      const output = outputContent(answer, this.s.contentMaxChars);
      t.output = this.stored(JSON.stringify(output.value));
      t.outputCut = output.cut;
    }
  }

  finish(f: FinishedRequest): void {
    const t = f.state?.get(TRACE) as RequestTrace | undefined;
    if (!t) return;
    const rc = f.rc;
    const end = f.time + f.totalMs;
    // an attempt cut short by the client leaving may not have ended through the hook
    if (t.span) {
      t.span.end(end);
      t.span = undefined;
    }
    if (rc !== undefined && t.winner !== undefined && t.winnerSpan !== undefined) this.endWinner(t, rc, f, end);
    const server = t.server;
    const failure = f.error;
    if (t.sampled) {
      // the span's own attribute set, written in place (the span is recording and not yet ended)
      const a = server.attributes;
      a[ATTR_HTTP_RESPONSE_STATUS_CODE] = f.status;
      if (f.key !== undefined) a[GW.key] = f.key.name;
      // as sent, the client's: a name past the bound a request is held to (answered 400) is kept cut
      if (f.model !== undefined) setBounded(a, GW.model, f.model, MAX_MODEL_CHARS);
      if (rc !== undefined) {
        a[GW.cacheHit] = rc.cacheHit;
        a[GW.attempts] = rc.attempts;
        a[GW.overheadMs] = round(Math.max(0, f.totalMs - rc.upstreamMs));
        if (rc.attempts > 0) a[GW.upstreamMs] = round(rc.upstreamMs);
        if (rc.provider !== undefined) {
          a[GW.provider] = rc.provider;
          a[GW.servedModel] = rc.servedModel;
        }
        if (rc.stream && rc.firstByteMs > 0) server.addEvent(EVENTS.firstByte, undefined, f.time + rc.firstByteMs);
      } else a[GW.overheadMs] = round(f.totalMs);
      const guarded = f.state?.get(GUARDRAILS) as readonly GuardrailOutcome[] | undefined;
      if (guarded !== undefined && guarded.length > 0) a[GW.guardrails] = checkNames(guarded);
      if (failure !== undefined) a[ATTR_ERROR_TYPE] = errorType(failure);
      else if (f.status >= 400) a[ATTR_ERROR_TYPE] = String(f.status);
      else if (mcpCallOf(f.state)?.outcome === 'tool_error') a[ATTR_ERROR_TYPE] = 'tool_error';
      // an error for every refusal (4xx) too, where the HTTP conventions leave a server's 4xx
      // unset: a gateway's refusals (401, 403, 404, 429) are what its operator looks for; a
      // client that left (499) is no one's error
      if (f.status >= 400 && f.status !== 499) server.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(failure) ?? `HTTP ${f.status}` });
    }
    server.end(end);
    if (rc !== undefined && this.metrics) this.serverMetrics(t, rc, f);
  }

  /**
   * `${a} ${b}` as one shared string per name: a span waiting for its export batch then holds
   * no concatenation of its own for the garbage collector to copy. The parts are route paths,
   * methods, operations and configured model names, so the set is small; past NAME_PARTS a
   * name is made each time.
   */
  private nameOf(a: string, b: string): string {
    let byB = this.names.get(a);
    if (byB === undefined) this.names.set(a, (byB = new Map()));
    let name = byB.get(b);
    if (name === undefined) {
      name = `${a} ${b}`;
      if (byB.size < NAME_PARTS) byB.set(b, name);
    }
    return name;
  }

  /** Ends the answering attempt's span: response facts, usage, cost, the stream's events. */
  private endWinner(t: RequestTrace, rc: RequestContext, f: FinishedRequest, end: number): void {
    const at = t.winner!;
    const span = t.winnerSpan!;
    const failure = f.error;
    // a whole answer's attempt ended when its body was read; a stream's when its last event came
    const ended = rc.stream ? end : epoch(at.endedAt);
    if (t.sampled) {
      const a = span.attributes;
      const facts = t.facts;
      if (facts?.id !== undefined) a[ATTR_GEN_AI_RESPONSE_ID] = facts.id;
      if (facts?.model !== undefined) a[ATTR_GEN_AI_RESPONSE_MODEL] = facts.model;
      if (facts?.finishReasons !== undefined) a[ATTR_GEN_AI_RESPONSE_FINISH_REASONS] = facts.finishReasons;
      usageAttributes(a, rc.usage);
      if (rc.usageEstimated) a[GW.usageEstimated] = true;
      // the core's cost of the request (rc.cost), as the request log and the budget charge it; none when unpriced
      if (rc.cost) a[GW.costUsd] = Math.round(rc.cost.total * 1e9) / 1e9;
      if (this.s.captureContent && rc.operation !== 'tool') {
        const input = inputContent(rc.content(), this.s.contentMaxChars);
        a[ATTR_GEN_AI_INPUT_MESSAGES] = this.stored(JSON.stringify(input.messages.value));
        if (input.messages.cut) markCut(a, ATTR_GEN_AI_INPUT_MESSAGES);
        if (input.system) {
          a[ATTR_GEN_AI_SYSTEM_INSTRUCTIONS] = this.stored(JSON.stringify(input.system.value));
          if (input.system.cut) markCut(a, ATTR_GEN_AI_SYSTEM_INSTRUCTIONS);
        }
        const output = t.output ?? (t.text ? this.stored(JSON.stringify(t.text.message(facts?.finishReasons?.[0]))) : undefined);
        if (output !== undefined) {
          a[ATTR_GEN_AI_OUTPUT_MESSAGES] = output;
          if (t.outputCut || t.text?.cut) markCut(a, ATTR_GEN_AI_OUTPUT_MESSAGES);
        }
      }
      if (rc.stream) {
        const ttfc = (at.endedAt - at.startedAt) / 1000;
        a[ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK] = ttfc;
        const first = attributeSet();
        first[ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK] = ttfc;
        span.addEvent(EVENTS.firstToken, first, epoch(at.endedAt));
        if (failure === undefined) span.addEvent(EVENTS.end, undefined, end);
        else {
          const failed = attributeSet();
          failed[ATTR_ERROR_TYPE] = errorType(failure);
          failed['exception.message'] = errorMessage(failure) ?? '';
          span.addEvent(EVENTS.failure, failed, end);
        }
      }
      if (failure !== undefined && rc.stream) {
        a[ATTR_ERROR_TYPE] = errorType(failure);
        span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(failure) });
      }
    }
    span.end(ended);
    const m = this.metrics;
    if (!m) return;
    const op = rc.operationName;
    const provider = providerName(at.kind);
    const responseModel = t.facts?.model;
    const error = failure !== undefined && rc.stream ? errorType(failure) : undefined;
    m.operationDuration.record((ended - epoch(at.startedAt)) / 1000, ATTEMPT, op, provider, at.model, responseModel, error);
    const u = rc.usage;
    if (u !== undefined) {
      m.tokenUsage.record(u.prompt_tokens, TOKENS, op, provider, at.model, responseModel, error, GEN_AI_TOKEN_TYPE_VALUE_INPUT);
      m.tokenUsage.record(u.completion_tokens, TOKENS, op, provider, at.model, responseModel, error, GEN_AI_TOKEN_TYPE_VALUE_OUTPUT);
    }
  }

  /** gw as a GenAI server: request duration, and for a stream that succeeded its first-token and per-token times. */
  private serverMetrics(t: RequestTrace, rc: RequestContext, f: FinishedRequest): void {
    const m = this.metrics!;
    const op = rc.operationName;
    const provider = t.winner ? providerName(t.winner.kind) : 'gw';
    const responseModel = t.facts?.model;
    const error = f.error !== undefined ? errorType(f.error) : undefined;
    // a model gw does not serve (or the key may not call) is any name a client makes up: one series for all
    const model = isModelRefusal(f.error) ? OTHER_MODEL : rc.canonicalModel;
    m.requestDuration.record(f.totalMs / 1000, SERVER, op, model, provider, responseModel, error);
    if (!rc.stream || f.error !== undefined || rc.firstByteMs <= 0) return;
    const ttft = rc.firstByteMs / 1000;
    m.timeToFirstToken.record(ttft, SERVER, op, rc.canonicalModel, provider, responseModel);
    const out = rc.usage?.completion_tokens;
    if (typeof out === 'number' && out > 1)
      m.timePerOutputToken.record((f.totalMs / 1000 - ttft) / (out - 1), SERVER, op, rc.canonicalModel, provider, responseModel);
  }
}

/** The usage attributes, OpenAI semantics as gw keeps them: input includes cached tokens, output reasoning ones (as the conventions ask). */
function usageAttributes(a: Attributes, u: Usage | undefined): void {
  if (u === undefined) return;
  if (count(u.prompt_tokens) !== undefined) a[ATTR_GEN_AI_USAGE_INPUT_TOKENS] = u.prompt_tokens;
  if (count(u.completion_tokens) !== undefined) a[ATTR_GEN_AI_USAGE_OUTPUT_TOKENS] = u.completion_tokens;
  const cached = count(u.prompt_tokens_details?.cached_tokens);
  if (cached !== undefined) a[ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS] = cached;
  const written = count(u.prompt_tokens_details?.cache_write_tokens);
  if (written !== undefined) a[ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS] = written;
  const reasoning = count(u.completion_tokens_details?.reasoning_tokens);
  if (reasoning !== undefined) a[ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS] = reasoning;
}

function count(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;
}

/** `error.type`: gw's error code (`upstream_timeout`, `rate_limit_exceeded`…), else the HTTP status, else the class. */
function errorType(err: unknown): string {
  const e = err as Partial<GatewayError> | undefined;
  if (typeof e?.code === 'string' && e.code) return e.code;
  if (typeof e?.status === 'number') return String(e.status);
  return err instanceof Error ? err.name : '_OTHER';
}

/** What a span says of a failure: the log-safe message (it names the field and the rule, never quotes the request), bounded. */
function errorMessage(err: unknown): string | undefined {
  if (err instanceof GatewayError) return cutText(messageForStores(err, false), STATUS_MESSAGE_MAX_CHARS);
  return err instanceof Error ? err.name : undefined;
}

/** Epoch ms of a `performance.now()` reading (an attempt's times). */
function epoch(perfMs: number): number {
  return performance.timeOrigin + perfMs;
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
