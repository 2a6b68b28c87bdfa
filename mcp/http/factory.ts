/**
 * The MCP server a client talks to, one SDK `Server` per HTTP request (the SDK's per-request
 * serving: no state in a server object, so any instance answers any request): gw's catalog
 * as tools, prompts and resources, each request's caller (key, scope, session) handed over in
 * the request's `authInfo`. The SDK does the wire: negotiation, JSON or SSE answers, progress,
 * `-32601` for a method nobody handles (and nothing else: the session stays usable).
 *
 *   tools/list, prompts/list, resources/list, resources/templates/list   what the key may use
 *   tools/call        governed (call.ts)
 *   prompts/get, resources/read   to the owning server, under its own names
 */
import { type AuthInfo, ProtocolError, ProtocolErrorCode, type ServerContext, Server } from '@modelcontextprotocol/server';
import { GW_VERSION } from '../../lib/package-info.ts';
import type { Caller, ToolCalls } from '../call.ts';
import type { Catalog } from '../catalog.ts';
import type { UpstreamServer } from '../upstream/connection.ts';
import type { Cancels } from './cancels.ts';

const SERVER_INFO = { name: 'gw', version: GW_VERSION };
const CAPABILITIES = { tools: { listChanged: true }, prompts: { listChanged: true }, resources: { listChanged: true } };
const INSTRUCTIONS = 'gw: the MCP servers of your team behind one endpoint. Tools and prompts are named <server>__<name>.';

/** What a handler needs, from the request (in `authInfo.extra`). */
export interface Visit {
  caller: Caller;
}

export interface FactoryDeps {
  catalog(): Catalog;
  server(name: string): UpstreamServer | undefined;
  calls: ToolCalls;
  cancels: Cancels;
}

/** The `authInfo` that carries `visit` to the handlers (the key itself never: the SDK may log authInfo). */
export function authInfoOf(visit: Visit): AuthInfo {
  return { token: '', clientId: visit.caller.key?.name ?? '(open)', scopes: [], extra: { visit } };
}

function visitOf(ctx: ServerContext): Visit {
  const v = ctx.http?.authInfo?.extra?.visit as Visit | undefined;
  if (!v) throw new ProtocolError(ProtocolErrorCode.InternalError, 'no caller');
  return v;
}

/** A fresh SDK server for one request. */
export function serverFor(d: FactoryDeps): Server {
  const s = new Server(SERVER_INFO, { capabilities: CAPABILITIES, instructions: INSTRUCTIONS });
  s.setRequestHandler('tools/list', (_req, ctx) => {
    const { caller } = visitOf(ctx);
    return { tools: d.catalog().listTools(caller.allows, caller.scope) };
  });
  s.setRequestHandler('tools/call', async (req, ctx) => {
    const { caller } = visitOf(ctx);
    const params = req.params as unknown as Record<string, unknown>;
    const token = (params._meta as { progressToken?: string | number } | undefined)?.progressToken;
    // progress goes out before the result: a notification sent after it would be lost with the stream
    const sent: Promise<unknown>[] = [];
    const progress =
      token === undefined
        ? undefined
        : (p: { progress: number; total?: number; message?: string }) =>
            void sent.push(ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, ...p } }).catch(() => undefined));
    const cancel = d.cancels.track(caller.session?.id, ctx.mcpReq.id, ctx.mcpReq.signal);
    try {
      const result = await d.calls.call(caller, params, { requestId: ctx.mcpReq.id, signal: cancel.signal, progress });
      await Promise.all(sent);
      return result as never;
    } finally {
      cancel.done();
    }
  });
  s.setRequestHandler('prompts/list', (_req, ctx) => {
    const { caller } = visitOf(ctx);
    return { prompts: d.catalog().listPrompts(caller.allows, caller.scope) };
  });
  s.setRequestHandler('prompts/get', async (req, ctx) => {
    const { caller } = visitOf(ctx);
    const e = d.catalog().prompt(req.params.name, caller.scope);
    if (!e || !caller.allows(e.full)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt: ${req.params.name}`);
    return (await forward(d, e.server, 'prompts/get', { ...req.params, name: e.own }, ctx)) as never;
  });
  s.setRequestHandler('resources/list', (_req, ctx) => {
    const { caller } = visitOf(ctx);
    return { resources: d.catalog().listResources(caller.allows, caller.scope) };
  });
  s.setRequestHandler('resources/templates/list', (_req, ctx) => {
    const { caller } = visitOf(ctx);
    return { resourceTemplates: d.catalog().listTemplates(caller.allows, caller.scope) };
  });
  s.setRequestHandler('resources/read', async (req, ctx) => {
    const { caller } = visitOf(ctx);
    const r = d.catalog().resource(req.params.uri, caller.scope);
    if (!r || !caller.allows(r.full))
      throw new ProtocolError(ProtocolErrorCode.ResourceNotFound, `Resource not found: ${req.params.uri}`, { uri: req.params.uri });
    return (await forward(d, r.server, 'resources/read', { uri: req.params.uri }, ctx)) as never;
  });
  return s;
}

/** A request the client sent, to the server that owns what it names; its failure as a JSON-RPC error. */
async function forward(d: FactoryDeps, name: string, method: string, params: Record<string, unknown>, ctx: ServerContext): Promise<unknown> {
  const server = d.server(name);
  try {
    if (!server) throw new Error('not running');
    return await server.request(method, params, { signal: ctx.mcpReq.signal });
  } catch (err) {
    if (err instanceof ProtocolError) throw err;
    throw new ProtocolError(-32000, `MCP server '${name}' failed: ${(err as Error).message}`);
  }
}
