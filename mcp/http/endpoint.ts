/**
 * `POST|GET|DELETE /mcp` and `/mcp/<server>` (docs/mcp.md): the gateway key was checked by the
 * app (401 with gw's usual message; no OAuth discovery is advertised), then:
 *
 *   Origin        a browser origin that is not loopback or in `[mcp] allowed_origins` ─▶ 403
 *   era           the SDK's own classification (`isLegacyRequest`): a request carrying the
 *                 2026-07-28 `_meta` envelope is served stateless by the SDK's handler, which
 *                 checks `Mcp-Method`/`Mcp-Name` against the body (-32020 for that request only)
 *   2025-11-25    sessions of our own, in the store (sessions.ts): `initialize` opens one and
 *                 answers `Mcp-Session-Id`; every later request names it (404 "Session not
 *                 found" for an unknown one, or one of another key); GET is its notification
 *                 stream (listen.ts); DELETE ends it. `Mcp-Method`/`Mcp-Name`, when a client
 *                 sends them, must agree with the body too (-32020, the session stays usable)
 *
 * Each request gets a fresh SDK server (factory.ts): the SDK writes the answer, JSON or SSE.
 */
import { Readable } from 'node:stream';
import { createMcpHandler, isLegacyRequest, type McpHttpHandler, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import type { Context } from 'koa';
import type { KeyInfo } from '../../core/context.ts';
import { GatewayError } from '../../core/errors.ts';
import type { GwState } from '../../core/pipeline/state.ts';
import type { Snapshot } from '../../core/snapshot.ts';
import type { Caller } from '../call.ts';
import type { Allows } from '../catalog.ts';
import type { SessionRecord, Sessions } from '../sessions.ts';
import type { ClientSession, SessionPool } from '../upstream/session-pool.ts';
import type { Cancels } from './cancels.ts';
import { authInfoOf, type FactoryDeps, serverFor, type Visit } from './factory.ts';
import { FORBIDDEN_ORIGIN, HEADER_MISMATCH, jsonRpcError, NO_SESSION_HEADER, SESSION_NOT_FOUND, UNKNOWN_SERVER } from './jsonrpc.ts';
import { type ListenDeps, openStream } from './listen.ts';

/** Headers of the client's request the SDK never needs (its credentials stay out of the SDK's hands). */
const DROPPED = new Set(['authorization', 'x-api-key', 'cookie', 'proxy-authorization']);
const LOOPBACK = /^https?:\/\/(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?$/i;
/** 2025-era (and older) revisions: dates before 2026. */
const LEGACY_REVISION = /^20(24|25)-\d\d-\d\d$/;
/** The `_meta` key of a 2026-07-28 request's envelope claim. */
const CLAIM = 'io.modelcontextprotocol/protocolVersion';
const ALLOW_ALL: Allows = () => true;
const ALLOW_NONE: Allows = () => false;

export interface EndpointDeps extends FactoryDeps {
  sessions: Sessions;
  pool: SessionPool;
  cancels: Cancels;
  listen: ListenDeps;
  /** Whether `name` is a running server (for `/mcp/<server>`). */
  hasServer(name: string): boolean;
  /** `[mcp] allowed_origins` now. */
  allowedOrigins(): readonly string[];
  onError(err: Error): void;
}

export class McpEndpoint {
  private readonly d: EndpointDeps;
  private readonly modern: McpHttpHandler;

  constructor(deps: EndpointDeps) {
    this.d = deps;
    // the caller rides in each request's authInfo: one factory serves every key
    this.modern = createMcpHandler(() => serverFor(this.d), {
      legacy: 'reject',
      onerror: (err) => deps.onError(err),
    });
  }

  /** Tells 2026-07-28 clients listening (`subscriptions/listen`) that lists changed. */
  notify(c: { tools: boolean; prompts: boolean; resources: boolean }): void {
    if (c.tools) this.modern.notify.toolsChanged();
    if (c.prompts) this.modern.notify.promptsChanged();
    if (c.resources) this.modern.notify.resourcesChanged();
  }

  async close(): Promise<void> {
    await this.modern.close();
  }

  async post(ctx: Context): Promise<void> {
    const st = ctx.state as GwState;
    const scope = this.scopeOf(ctx);
    const body = st.body!.body;
    const request = webRequest(ctx);
    if (!(plainLegacy(ctx, body) || (await isLegacyRequest(request, body)))) {
      const caller = this.caller(ctx, scope, undefined, envelopeVersion(body));
      return send(ctx, await this.modern.fetch(request, { parsedBody: body, authInfo: authInfoOf({ caller }) }));
    }
    const mismatch = headerMismatch(ctx, body);
    if (mismatch) return jsonRpcError(ctx, HEADER_MISMATCH(mismatch), body.id);
    if (body.method === 'initialize') return this.initialize(ctx, st, scope, request, body);
    const sid = ctx.get('mcp-session-id');
    if (!sid) return jsonRpcError(ctx, NO_SESSION_HEADER(), body.id);
    const session = await this.session(st, sid, scope);
    if (!session) return jsonRpcError(ctx, SESSION_NOT_FOUND(), body.id);
    if (body.method === 'notifications/cancelled') {
      await this.d.cancels.cancel(sid, (body.params as { requestId?: unknown } | undefined)?.requestId);
      ctx.status = 202;
      return empty(ctx);
    }
    const caller = this.caller(ctx, scope, session, session.record.version);
    const response = await this.legacy(request, body, { caller });
    ctx.set('mcp-session-id', sid);
    return send(ctx, response);
  }

  async get(ctx: Context): Promise<void> {
    const st = ctx.state as GwState;
    const scope = this.scopeOf(ctx);
    const sid = ctx.get('mcp-session-id');
    if (!sid) {
      // no session: nothing to stream (2026-07-28 clients listen with subscriptions/listen)
      ctx.set('allow', 'POST, DELETE');
      return jsonRpcError(ctx, new GatewayError(405, 'Method not allowed: GET needs an Mcp-Session-Id (a 2025-11-25 session)'), null);
    }
    if (!(ctx.get('accept') ?? '').includes('text/event-stream'))
      return jsonRpcError(ctx, new GatewayError(406, 'Not Acceptable: the client must accept text/event-stream'), null);
    const session = await this.session(st, sid, scope);
    if (!session) return jsonRpcError(ctx, SESSION_NOT_FOUND(), null);
    openStream(ctx, this.d.listen, sid, st.key?.name);
  }

  async delete(ctx: Context): Promise<void> {
    const st = ctx.state as GwState;
    const scope = this.scopeOf(ctx);
    const sid = ctx.get('mcp-session-id');
    if (!sid) return jsonRpcError(ctx, NO_SESSION_HEADER(), null);
    const session = await this.session(st, sid, scope);
    if (!session) return jsonRpcError(ctx, SESSION_NOT_FOUND(), null);
    const rec = await this.d.sessions.delete(sid);
    await this.d.pool.end(sid, rec, (name) => this.d.server(name));
    ctx.status = 204;
    ctx.body = null;
  }

  /** Opens a session: the SDK answers initialize, and the negotiated version and client are stored. */
  private async initialize(ctx: Context, st: GwState, scope: string | undefined, request: Request, body: Record<string, unknown>): Promise<void> {
    const caller = this.caller(ctx, scope, undefined, undefined);
    const response = await this.legacy(request, body, { caller });
    const text = await response.text();
    if (response.status === 200) {
      const params = (body.params ?? {}) as { clientInfo?: { name?: string; version?: string }; capabilities?: Record<string, unknown> };
      const answer = parseAnswer(text);
      const rec: SessionRecord = {
        key: st.key?.name ?? '',
        version: typeof answer?.protocolVersion === 'string' ? answer.protocolVersion : '',
        client: params.clientInfo && { name: String(params.clientInfo.name ?? ''), version: String(params.clientInfo.version ?? '') },
        capabilities: params.capabilities,
        scope: scope ?? null,
        created: Date.now(),
      };
      ctx.set('mcp-session-id', await this.d.sessions.create(rec));
    }
    ctx.status = response.status;
    response.headers.forEach((v, k) => void ctx.set(k, v));
    ctx.body = text;
  }

  /**
   * One 2025-era request on a fresh SDK server (stateless: the session is ours). JSON unless the
   * client asked for progress. The server and its transport hold nothing once the answer is
   * written (no timer, no listener beyond the request's), so they are left to the collector:
   * closing them would build an error for each pending map they clear, a tenth of a call's time.
   */
  private async legacy(request: Request, body: Record<string, unknown>, visit: Visit): Promise<Response> {
    const server = serverFor(this.d);
    const wantsProgress = (body.params as { _meta?: { progressToken?: unknown } } | undefined)?._meta?.progressToken !== undefined;
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !wantsProgress });
    await server.connect(transport);
    return transport.handleRequest(request, { parsedBody: body, authInfo: authInfoOf(visit) });
  }

  /** The session `sid` when it exists, belongs to this key and was opened on this path. */
  private async session(st: GwState, sid: string, scope: string | undefined): Promise<ClientSession | undefined> {
    const record = await this.d.sessions.get(sid);
    if (!record || record.key !== (st.key?.name ?? '') || record.scope !== (scope ?? null)) return undefined;
    return { id: sid, record };
  }

  private caller(ctx: Context, scope: string | undefined, session: ClientSession | undefined, version: string | undefined): Caller {
    const st = ctx.state as GwState;
    return { key: st.key, allows: allowsOf(st.key, st.snap), scope, session, protocolVersion: version, headers: ctx.headers, snapshot: st.snap };
  }

  /**
   * `/mcp/<server>`'s server (undefined for `/mcp`), after the Origin check.
   * @throws GatewayError 403 for a browser origin that is not allowed, 404 for an unknown server.
   */
  private scopeOf(ctx: Context): string | undefined {
    const origin = ctx.get('origin');
    if (origin && !LOOPBACK.test(origin) && !this.d.allowedOrigins().includes(origin)) throw FORBIDDEN_ORIGIN(origin);
    const scope = ctx.params?.server as string | undefined;
    if (scope !== undefined && !this.d.hasServer(scope)) throw UNKNOWN_SERVER(scope);
    return scope;
  }
}

/** What `key` may use: its `mcp_tools`; everything on a gateway that runs open (no keys at all). */
function allowsOf(key: KeyInfo | undefined, snap: Snapshot): Allows {
  if (key) return key.mcpAllows;
  return snap.keys.open ? ALLOW_ALL : ALLOW_NONE;
}

/** The client's request as the SDK reads it: method, the MCP headers, an abort when the client leaves; never its credentials. */
function webRequest(ctx: Context): Request {
  const headers = new Headers();
  for (const [k, v] of Object.entries(ctx.headers)) {
    if (v === undefined || DROPPED.has(k)) continue;
    headers.set(k, Array.isArray(v) ? v.join(', ') : v);
  }
  const ac = new AbortController();
  ctx.res.once('close', () => {
    if (!ctx.res.writableFinished) ac.abort();
  });
  return new Request(`http://gw${ctx.path}`, { method: ctx.method, headers, signal: ac.signal });
}

/** Sends the SDK's answer: status, headers, and its body (an SSE stream is piped as it comes). */
async function send(ctx: Context, r: Response): Promise<void> {
  ctx.status = r.status;
  r.headers.forEach((v, k) => void ctx.set(k, v));
  if (r.body === null) return empty(ctx);
  if ((r.headers.get('content-type') ?? '').startsWith('text/event-stream')) ctx.body = Readable.fromWeb(r.body as never);
  else ctx.body = Buffer.from(await r.arrayBuffer());
}

/** No body, the status kept (Koa turns a null body into 204, and writes the status text for an unset one: a 202 stays an empty 202). */
function empty(ctx: Context): void {
  const status = ctx.status;
  ctx.body = '';
  ctx.status = status;
  ctx.remove('content-type');
}

/**
 * True for a request the SDK's classification would call 2025-era without a doubt: no
 * 2026-07-28 envelope claim in `params._meta`, and no `MCP-Protocol-Version` header, or one of
 * a 2025-era revision. Anything else is classified by the SDK (`isLegacyRequest`); this only
 * spares the common case a second classification (the SDK's handler classifies again).
 */
function plainLegacy(ctx: Context, body: Record<string, unknown>): boolean {
  const version = ctx.get('mcp-protocol-version');
  if (version && !LEGACY_REVISION.test(version)) return false;
  const meta = (body.params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  return meta === undefined || meta === null || typeof meta !== 'object' || !(CLAIM in meta);
}

/** The revision a 2026-07-28 request claims in its `_meta` envelope. */
function envelopeVersion(body: Record<string, unknown>): string | undefined {
  const meta = (body.params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  const v = meta?.[CLAIM];
  return typeof v === 'string' ? v : undefined;
}

/**
 * What disagrees between the `Mcp-Method`/`Mcp-Name` headers and the body, when a 2025-era
 * client sent them: the body decides what is called, a header that says otherwise fails the request.
 */
function headerMismatch(ctx: Context, body: Record<string, unknown>): string | undefined {
  const method = ctx.get('mcp-method');
  if (method && method !== body.method) return `Mcp-Method header '${method}' does not match the body's method '${String(body.method)}'`;
  const name = ctx.get('mcp-name');
  if (!name) return undefined;
  const p = (body.params ?? {}) as { name?: unknown; uri?: unknown };
  const target = body.method === 'resources/read' ? p.uri : p.name;
  if (target !== undefined && name !== target) return `Mcp-Name header '${name}' does not match the body's '${String(target)}'`;
  return undefined;
}

function parseAnswer(text: string): { protocolVersion?: unknown } | undefined {
  try {
    return (JSON.parse(text) as { result?: { protocolVersion?: unknown } }).result;
  } catch {
    return undefined;
  }
}
