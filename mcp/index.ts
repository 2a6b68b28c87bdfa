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
import { mountAdmin } from './admin.ts';
import type { McpCore } from './core.ts';
import type { McpHost } from './host.ts';
import { MCP_ERRORS } from './http/jsonrpc.ts';
import { ServerRecords } from './records.ts';

export type { McpHost, McpMetrics } from './host.ts';

/** How often a gateway without MCP servers looks for one (a reload, another instance's runtime server). */
const DORMANT_POLL_MS = 1000;

/** The running MCP gateway. */
export interface McpGateway {
  /** True once the core runs (a server configured or created, or a request to /mcp). */
  readonly started: boolean;
  /** Stops the servers, the streams and the timers; writes what is pending. */
  close(): Promise<void>;
}

/**
 * Mounts `/mcp`, `/mcp/<server>` and the admin API on `host`, and starts the core (core.ts)
 * when MCP is in use: at once when a server is configured or stored, else on the first server
 * a reload, the admin API or another instance adds, or on the first request to `/mcp`.
 */
export async function startMcp(host: McpHost): Promise<McpGateway> {
  let core: Promise<McpCore> | undefined;
  let closed = false;
  let dormant: NodeJS.Timeout | undefined;
  const start = (): Promise<McpCore> => {
    if (closed) return Promise.reject(new Error('the MCP gateway is closed'));
    clearInterval(dormant);
    core ??= import('./core.ts').then((m) => m.startCore(host));
    return core;
  };
  for (const path of ['/mcp', '/mcp/:server']) {
    const route = { path, auth: 'key' as const, keyFrom: ['bearer', 'x-api-key'] as const, errors: MCP_ERRORS, owner: 'MCP gateway' };
    host.routes.add({ ...route, method: 'POST', body: true, handler: async (ctx) => (await start()).endpoint.post(ctx) });
    host.routes.add({ ...route, method: 'GET', handler: async (ctx) => (await start()).endpoint.get(ctx) });
    host.routes.add({ ...route, method: 'DELETE', handler: async (ctx) => (await start()).endpoint.delete(ctx) });
  }
  mountAdmin(host.routes, {
    list: async () => (core ? (await core).listing() : []),
    one: async (name) => (core ? (await (await core).listing(name))[0] : undefined),
    create: async (name, section, waitMs) => (await start()).create(name, section, waitMs),
    delete: async (name) => (await start()).delete(name),
  });
  const records = new ServerRecords(host.store.namespace('mcp'));
  const configured = () => Object.keys(host.snapshot.config.mcp_servers).length > 0;
  if (configured() || (await records.any())) await start();
  else {
    const wake = () => void start().catch((err: Error) => host.log.error({ err: err.message }, 'the MCP gateway could not start'));
    // on a store no other instance shares, a runtime server comes only through this one's admin API
    const look = async () => configured() || (host.sharedStore && (await records.any()));
    dormant = setInterval(
      () =>
        void look().then(
          (found) => found && wake(),
          () => undefined,
        ),
      DORMANT_POLL_MS,
    );
    dormant.unref();
  }
  return {
    get started() {
      return core !== undefined;
    },
    async close() {
      closed = true;
      clearInterval(dormant);
      await (await core?.catch(() => undefined))?.close();
    },
  };
}
