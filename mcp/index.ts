/**
 * The MCP gateway (docs/mcp.md): a team's MCP servers behind one `/mcp`, governed by gw keys
 * like its models. Built by the host (server/gateway.ts) beside the model routes:
 *
 *   servers.ts    the upstream servers (config and runtime), one connection each, health
 *   catalog.ts    their tools, prompts and resources under namespaced names
 *   http/         /mcp and /mcp/<server>: the SDK's per-request servers, sessions in the store
 *   call.ts       each tools/call through the hook pipeline (limits, budget, logs, metrics, traces)
 *   admin.ts      /v1/admin/mcp-servers
 *
 * Every instance on a shared store serves every session; nothing a request needs lives only
 * in one process, except the upstream connections themselves (each instance keeps its own).
 */
import { ToolCalls } from './call.ts';
import type { Catalog } from './catalog.ts';
import { mountAdmin } from './admin.ts';
import type { McpHost } from './host.ts';
import { Cancels } from './http/cancels.ts';
import { McpEndpoint } from './http/endpoint.ts';
import { MCP_ERRORS } from './http/jsonrpc.ts';
import { type ServerListing, serverListing } from './listing.ts';
import { McpServers } from './servers.ts';
import { Sessions } from './sessions.ts';
import { CallStats } from './stats.ts';
import type { UpstreamServer } from './upstream/connection.ts';
import { SessionPool } from './upstream/session-pool.ts';

export type { McpHost, McpMetrics } from './host.ts';

/** The running MCP gateway. */
export interface McpGateway {
  /** The catalog now. */
  catalog(): Catalog;
  /** A running upstream server by name. */
  server(name: string): UpstreamServer | undefined;
  /** Every server's listing (as `GET /v1/admin/mcp-servers` answers). */
  list(): Promise<ServerListing[]>;
  /** Stops the servers, the streams and the timers; writes what is pending. */
  close(): Promise<void>;
}

/** Starts the MCP gateway on `host`: its servers connect in the background; its routes are registered. */
export async function startMcp(host: McpHost): Promise<McpGateway> {
  const store = host.store.namespace('mcp');
  const log = host.log.child({ component: 'mcp' });
  const servers = new McpServers(host);
  const sessions = new Sessions(store, () => host.snapshot.config.mcp.session_idle_seconds * 1000, host.sharedStore);
  const pool = new SessionPool(sessions, log);
  let lastWarn = 0;
  const stats = new CallStats(store, (err) => {
    if (Date.now() - lastWarn < 10_000) return;
    lastWarn = Date.now();
    log.warn({ err: err.message }, 'MCP call figures could not be written (more failures in the next 10 s are not logged)');
  });
  const cancels = new Cancels(store, () => host.sharedStore);
  const server = (name: string) => servers.get(name);
  const catalog = () => servers.catalog();
  const calls = new ToolCalls({ host, catalog, server, pool, stats, store, log });
  const endpoint = new McpEndpoint({
    catalog,
    server,
    calls,
    cancels,
    sessions,
    pool,
    listen: {
      onChange: (fn) => servers.onChange(fn),
      snapshot: () => host.snapshot,
      alive: async (id) => (await sessions.get(id)) !== undefined,
    },
    hasServer: (name) => servers.get(name) !== undefined,
    allowedOrigins: () => host.snapshot.config.mcp.allowed_origins,
    onError: (err) => log.debug({ err: err.message }, 'MCP request refused'),
  });
  servers.onChange((c) => endpoint.notify(c));
  host.mcpMetrics.servers(() => servers.all().map((r) => ({ name: r.server.name, up: r.server.state === 'up' })));

  const listing = async (one?: string): Promise<ServerListing[]> => {
    const figures = await stats.read();
    const max = host.snapshot.config.mcp.max_tool_name_length;
    const out: ServerListing[] = [];
    for (const r of servers.all()) {
      if (one !== undefined && r.server.name !== one) continue;
      const l = serverListing(r.server, r.source, servers.catalog(), max, figures.get(r.server.name), r.createdAt);
      if (one !== undefined) l.stderr = r.server.stderr.read();
      out.push(l);
    }
    return out;
  };

  for (const path of ['/mcp', '/mcp/:server']) {
    const route = { path, auth: 'key' as const, keyFrom: ['bearer', 'x-api-key'] as const, errors: MCP_ERRORS, owner: 'MCP gateway' };
    host.routes.add({ ...route, method: 'POST', body: true, handler: (ctx) => endpoint.post(ctx) });
    host.routes.add({ ...route, method: 'GET', handler: (ctx) => endpoint.get(ctx) });
    host.routes.add({ ...route, method: 'DELETE', handler: (ctx) => endpoint.delete(ctx) });
  }
  mountAdmin(host.routes, {
    list: () => listing(),
    one: async (name) => (await listing(name))[0],
    create: async (name, section, waitMs) => {
      const s = await servers.create(name, section, waitMs);
      return (await listing(s.name))[0]!;
    },
    delete: (name) => servers.delete(name),
  });

  await servers.start();
  return {
    catalog,
    server,
    list: () => listing(),
    async close() {
      await endpoint.close();
      await pool.close();
      await servers.close();
      await stats.close();
    },
  };
}
