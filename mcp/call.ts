/**
 * One tools/call, governed like any gateway request: it runs through the same hook pipeline
 * (core/hooks.ts), so every extension sees it as a request whose `operation` is `tool`, whose
 * `model` is the tool's full name and whose `provider` is its server (docs/mcp.md "Governance"):
 *
 *   onArrival  trace context from `params._meta` (else the HTTP headers); the MCP_CALL fact is
 *              already in the request's state, so a tracer names the span `tools/call {tool}`
 *   resolve    unknown tool, or one the key's `mcp_tools` does not cover ─▶ onError ─▶ `denied`
 *   admit      the server's `max_concurrency` (store holds, across instances) ─▶ `limited`
 *   onRequest  rate_limit (`tool_calls_per_minute`), budget (reserves the call's price) ─▶ `limited`
 *   upstream   onUpstreamStart/End around the call (a tracer's child context goes upstream in
 *              `params._meta`); down/failed/timed out ─▶ `upstream_error`
 *   answer     `isError: true` ─▶ `tool_error` (charged: the tool ran), else `ok`; rc.cost is the
 *              price ─▶ onResponse (the budget settles, usage counts, the request log keeps it)
 *   end        request metrics (`route="mcp"`), gw_mcp_calls_total, the server's stats, onFinish
 *
 * The client gets the tool's result as the upstream gave it, or an error in MCP's own shape
 * (a JSON-RPC error): a denied tool's error is the unknown tool's, word for word.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { ProtocolError, ProtocolErrorCode, SdkError, SdkErrorCode } from '@modelcontextprotocol/server';
import type { Logger } from 'pino';
import { type KeyInfo, RequestContext } from '../core/context.ts';
import { GatewayError } from '../core/errors.ts';
import { type ArrivingRequest, ResponseInfo, runSeries } from '../core/hooks.ts';
import { notifyFinish } from '../core/pipeline/notify-finish.ts';
import { observeAttempt } from '../core/pipeline/observe-attempt.ts';
import type { GwState } from '../core/pipeline/state.ts';
import { notifyError } from '../core/pipeline/stream.ts';
import type { Snapshot } from '../core/snapshot.ts';
import { Cost } from '../lib/pricing/cost.ts';
import type { Store } from '../lib/store/types.ts';
import { MCP_CALL, type McpCall, type McpOutcome } from '../sdk/facts.ts';
import type { Allows, Catalog, ToolEntry } from './catalog.ts';
import { CALL_CANCELLED, CONCURRENCY_LIMIT, SERVER_DOWN, TOOL_DENIED, TOOL_NOT_FOUND, TOOL_REFUSED, UPSTREAM_FAILED, UPSTREAM_TIMEOUT } from './errors.ts';
import type { McpHost } from './host.ts';
import type { CallStats } from './stats.ts';
import { describe, type UpstreamServer } from './upstream/connection.ts';
import type { ClientSession, SessionPool } from './upstream/session-pool.ts';

/** Who calls, and from where: one per HTTP request. */
export interface Caller {
  /** undefined on a gateway that runs open (no keys). */
  readonly key: KeyInfo | undefined;
  /** What the key may use (`KeyInfo.mcpAllows`; everything on an open gateway). */
  readonly allows: Allows;
  /** The server of `/mcp/<server>`; undefined for `/mcp`. */
  readonly scope: string | undefined;
  /** The client's session (2025-11-25), when it has one. */
  readonly session: ClientSession | undefined;
  readonly protocolVersion: string | undefined;
  /** The HTTP request's headers (its `traceparent` when `_meta` carries none). */
  readonly headers: IncomingHttpHeaders;
  readonly snapshot: Snapshot;
}

/** What the SDK's handler context gives a call. */
export interface CallIo {
  requestId: string | number | undefined;
  /** Aborted when the client cancels the call or goes away. */
  signal: AbortSignal;
  /** Relays the upstream's progress to the client (set when the client asked for progress). */
  progress: ((p: { progress: number; total?: number; message?: string }) => void) | undefined;
}

/** What the calls need from the MCP gateway around them. */
export interface CallDeps {
  host: McpHost;
  catalog(): Catalog;
  server(name: string): UpstreamServer | undefined;
  pool: SessionPool;
  stats: CallStats;
  /** The `mcp` namespace of the store (concurrency holds). */
  store: Store;
  log: Logger;
}

/** A concurrency hold lapses after this long even if its call never ended (a bug guard). */
const HOLD_TTL_MS = 3_600_000;
/** `_meta` keys never forwarded: the client's protocol envelope (its version among them) and its progress token. */
const CLIENT_META = /^(io\.modelcontextprotocol\/|progressToken$|traceparent$|tracestate$)/;

export class ToolCalls {
  private readonly d: CallDeps;
  private seq = 0;

  constructor(deps: CallDeps) {
    this.d = deps;
  }

  /**
   * Runs one tools/call for `caller`: the result, or a ProtocolError in MCP's shape.
   * @throws ProtocolError (unknown or denied tool, refused, upstream failure, the upstream's own JSON-RPC error).
   */
  async call(caller: Caller, params: Record<string, unknown>, io: CallIo): Promise<Record<string, unknown>> {
    const d = this.d;
    const startedAt = performance.now();
    const id = randomUUID();
    const name = typeof params.name === 'string' ? params.name : '';
    const entry = d.catalog().tool(name, caller.scope);
    const known = entry !== undefined && caller.allows(entry.full);
    const call: McpCall = {
      server: entry?.server ?? '',
      tool: entry?.own ?? name,
      name,
      price: entry?.price ?? 0,
      sessionId: caller.session?.id,
      protocolVersion: caller.protocolVersion,
      requestId: io.requestId,
      outcome: undefined,
    };
    const raw = JSON.stringify(params);
    const st = this.arrive(caller, params, raw, call, id, startedAt);
    const rc = new RequestContext(
      id,
      { route: 'mcp', format: 'mcp', operation: 'tool', model: name, stream: false },
      caller.key,
      params,
      raw,
      // an unknown name is the client's text: never a metrics label
      entry?.full ?? '',
      startedAt,
      d.log,
      st.state,
      st.traceId,
    );
    st.rc = rc;
    let result: Record<string, unknown> | undefined;
    let failure: GatewayError | undefined;
    let answer: ProtocolError | undefined;
    let hold: string | undefined;
    try {
      if (!known) {
        call.outcome = 'denied';
        failure = entry ? TOOL_DENIED({ key: caller.key?.name ?? '(open)', name }) : TOOL_NOT_FOUND(name);
        // the same words for both: a denied tool is one the key cannot tell exists
        answer = new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
      } else {
        hold = await this.admit(rc, entry, call);
        result = await this.upstream(rc, caller, entry, params, io);
        call.outcome = result.isError === true ? 'tool_error' : 'ok';
        rc.provider = entry.server;
        rc.status = 200;
        rc.cost = new Cost(0, 0, 0, 0, 0, entry.price);
      }
    } catch (err) {
      failure = asGatewayError(err, entry?.server ?? '', d.server(entry?.server ?? '')?.config.timeout_seconds ?? 0);
      call.outcome ??= outcomeOf(failure);
      answer = err instanceof ProtocolError ? err : toProtocolError(failure);
    }
    rc.status = failure?.status ?? 200;
    if (failure) await notifyError(d.host, rc, failure);
    else await this.answered(rc, result!);
    if (hold !== undefined) await d.store.release(`concurrency:${entry!.server}`, hold).catch(() => undefined);
    const ms = performance.now() - startedAt;
    d.host.metrics.request('mcp', rc, rc.status, failure, ms);
    d.host.mcpMetrics.call(call.server, call.tool, call.outcome!, ms / 1000);
    if (call.server) d.stats.record(call.server, ms, call.outcome === 'ok');
    notifyFinish(d.host.hooks, st, 'mcp', rc.status, failure, ms);
    if (answer) throw answer;
    return result!;
  }

  /** The request's arrival (onArrival, before anything is decided): its state and trace. */
  private arrive(caller: Caller, params: Record<string, unknown>, raw: string, call: McpCall, id: string, startedAt: number): GwState {
    const state = new Map<string | symbol, unknown>([[MCP_CALL, call]]);
    const st: GwState = { id, startedAt, snap: caller.snapshot, key: caller.key, log: this.d.log, state, body: { body: params, raw } };
    const hooks = this.d.host.hooks;
    if (!hooks.onArrival.isUsed()) return st;
    // the trace context a client put in params._meta (the MCP conventions) wins over the HTTP request's
    const meta = params._meta as Record<string, unknown> | undefined;
    const headers = typeof meta?.traceparent === 'string' ? { traceparent: meta.traceparent, tracestate: strOr(meta.tracestate) } : caller.headers;
    const a: ArrivingRequest = {
      id,
      route: 'mcp',
      method: 'POST',
      path: caller.scope === undefined ? '/mcp' : '/mcp/:server',
      headers,
      time: performance.timeOrigin + startedAt,
      state,
      traceId: undefined,
      setHeader: () => undefined,
    };
    try {
      hooks.onArrival.call(a);
    } catch (err) {
      this.d.log.error({ err, req: id }, 'onArrival hook failed');
    }
    st.traceId = a.traceId;
    return st;
  }

  /**
   * Takes the server's concurrency slot (when it has `max_concurrency`), then runs onRequest.
   * @returns the slot's hold id, undefined when there is no cap.
   * @throws GatewayError from the cap or an onRequest tap.
   */
  private async admit(rc: RequestContext, entry: ToolEntry, call: McpCall): Promise<string | undefined> {
    const d = this.d;
    const server = d.server(entry.server);
    if (server?.state !== 'up') throw SERVER_DOWN({ server: entry.server, why: server?.lastError ?? 'not connected' });
    let hold: string | undefined;
    const limit = server.config.max_concurrency;
    if (limit !== undefined) {
      hold = `${++this.seq}`;
      const v = await d.store.hold(`concurrency:${entry.server}`, hold, 1, { field: 'n', limit, ttlMs: HOLD_TTL_MS });
      if (!v.admitted) {
        call.outcome = 'limited';
        throw CONCURRENCY_LIMIT({ server: entry.server, limit }, { headers: { 'retry-after': '1' } });
      }
    }
    try {
      if (d.host.hooks.onRequest.isUsed()) {
        const early = await d.host.hooks.onRequest.promise(rc);
        // an extension answering for the tool is a refusal here: the call never runs
        if (early !== undefined) throw new GatewayError(early.status, typeof early.body === 'string' ? early.body : JSON.stringify(early.body));
      }
    } catch (err) {
      if (hold !== undefined) await d.store.release(`concurrency:${entry.server}`, hold).catch(() => undefined);
      throw err;
    }
    return hold;
  }

  /** The call on its server, between onUpstreamStart and onUpstreamEnd. */
  private async upstream(rc: RequestContext, caller: Caller, entry: ToolEntry, params: Record<string, unknown>, io: CallIo): Promise<Record<string, unknown>> {
    const d = this.d;
    const server = d.server(entry.server)!;
    rc.attempts = 1;
    const t0 = performance.now();
    const run = (trace: Readonly<Record<string, string>> | undefined) => {
      const upstreamParams: Record<string, unknown> = { ...params, name: entry.own };
      const meta = forwardedMeta(params._meta, trace);
      if (meta) upstreamParams._meta = meta;
      else delete upstreamParams._meta;
      const opts = { signal: io.signal, onprogress: io.progress };
      const session = caller.session;
      return (
        session && server.sessionful ? d.pool.request(session, server, 'tools/call', upstreamParams, opts) : server.request('tools/call', upstreamParams, opts)
      ) as Promise<Record<string, unknown>>;
    };
    try {
      const hooks = d.host.hooks;
      if (!hooks.onUpstreamStart.isUsed() && !hooks.onUpstreamEnd.isUsed()) return await run(undefined);
      return await observeAttempt(hooks, rc, { name: entry.server, kind: 'mcp' }, rc.canonicalModel, 0, run);
    } finally {
      rc.upstreamMs = performance.now() - t0;
    }
  }

  /** onResponse for an answered call, with its result as the body (kept by the request log only with log_bodies). */
  private async answered(rc: RequestContext, result: Record<string, unknown>): Promise<void> {
    const hooks = this.d.host.hooks;
    if (!hooks.onResponse.isUsed()) return;
    try {
      const taps = runSeries(hooks.onResponse, rc, new ResponseInfo(JSON.stringify(result), result, undefined));
      if (taps) await taps;
    } catch (err) {
      // a tap that failed after the tool ran: the result stands, the failure is the operator's to see
      rc.log.error({ err, req: rc.id }, 'onResponse hook failed on an MCP tool call');
    }
  }
}

/** The client's `_meta` as the upstream gets it: no protocol envelope, no progress token (the SDK sets its own), our trace context. */
function forwardedMeta(meta: unknown, trace: Readonly<Record<string, string>> | undefined): Record<string, unknown> | undefined {
  let out: Record<string, unknown> | undefined;
  if (meta !== null && typeof meta === 'object') for (const [k, v] of Object.entries(meta)) if (!CLIENT_META.test(k)) (out ??= {})[k] = v;
  if (trace?.traceparent) {
    out ??= {};
    out.traceparent = trace.traceparent;
    if (trace.tracestate) out.tracestate = trace.tracestate;
  }
  return out;
}

/** A failure of the call as gw's error (what onError and the request log see). */
function asGatewayError(err: unknown, server: string, timeoutSeconds: number): GatewayError {
  if (err instanceof GatewayError) return err;
  if (err instanceof ProtocolError) return TOOL_REFUSED({ server, code: err.code, message: err.message });
  if (err instanceof SdkError) {
    if (err.code === SdkErrorCode.RequestTimeout) return UPSTREAM_TIMEOUT({ server, seconds: timeoutSeconds });
    if (err.code === SdkErrorCode.NotConnected) return SERVER_DOWN({ server, why: err.message });
  }
  if ((err as Error)?.name === 'AbortError' || (err as { code?: string })?.code === 'ABORT_ERR') return CALL_CANCELLED();
  return UPSTREAM_FAILED({ server, why: describe(err) });
}

function outcomeOf(err: GatewayError): McpOutcome {
  if (TOOL_REFUSED.is(err)) return 'tool_error';
  if (err.status === 429) return 'limited';
  if (err.status === 403 || err.status === 404) return 'denied';
  return 'upstream_error';
}

/** gw's error in MCP's shape: a JSON-RPC error whose data names gw's code (and when to retry). */
function toProtocolError(err: GatewayError): ProtocolError {
  const retry = err.headers?.['retry-after'];
  return new ProtocolError(-32000, err.message, { type: err.type, code: err.code, ...(retry ? { retry_after_seconds: Number(retry) } : {}) });
}

function strOr(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}
