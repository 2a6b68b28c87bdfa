/**
 * The MCP gateway's working part: the upstream servers, the catalog, sessions, tool calls and
 * the endpoint. Loaded by index.ts only once MCP is in use, so a gateway without MCP servers
 * never loads the MCP SDK (why: docs/benchmarks.md#mcp-sdk-loaded-on-use).
 */
import { ToolCalls } from './call.ts';
import type { McpHost } from './host.ts';
import { Cancels } from './http/cancels.ts';
import { McpEndpoint } from './http/endpoint.ts';
import { type ServerListing, serverListing } from './listing.ts';
import { McpServers } from './servers.ts';
import { Sessions } from './sessions.ts';
import { CallStats } from './stats.ts';
import { SessionPool } from './upstream/session-pool.ts';

/** What the routes (index.ts) call once the core runs. */
export interface McpCore {
  readonly endpoint: McpEndpoint;
  /** Every server's listing, or `one`'s with its stderr lines. */
  listing(one?: string): Promise<ServerListing[]>;
  create(name: string, section: Record<string, unknown>, waitMs: number): Promise<ServerListing>;
  delete(name: string): Promise<void>;
  /** Stops the servers, the streams and the timers; writes what is pending. */
  close(): Promise<void>;
}

/** Starts the MCP gateway's servers, sessions and endpoint on `host` (its routes: index.ts). */
export async function startCore(host: McpHost): Promise<McpCore> {
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

  await servers.start();
  return {
    endpoint,
    listing,
    create: async (name, section, waitMs) => {
      const created = await servers.create(name, section, waitMs);
      return (await listing(created.name))[0]!;
    },
    delete: (name) => servers.delete(name),
    async close() {
      await endpoint.close();
      await pool.close();
      await servers.close();
      await stats.close();
    },
  };
}
