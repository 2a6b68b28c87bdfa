/**
 * What the MCP gateway needs from the gateway that runs it (server/gateway.ts implements it):
 * the kernel's pipeline pieces (hooks, request metrics, clock), the running snapshot (config,
 * keys), the store, the route registry, and the MCP metric families (server/metrics/mcp.ts).
 * A narrow view, so mcp/ depends on the kernel and the libraries, never on the host.
 */
import type { Logger } from 'pino';
import type { PipelineHost } from '../core/pipeline/host.ts';
import type { Snapshot } from '../core/snapshot.ts';
import type { RouteRegistry } from '../lib/http/routes.ts';
import type { Store } from '../lib/store/types.ts';
import type { McpOutcome } from '../sdk/facts.ts';

/** The MCP families of `/metrics` (docs/metrics.md). */
export interface McpMetrics {
  /** One ended tools/call: `gw_mcp_calls_total{server,tool,outcome}` and `gw_mcp_call_duration_seconds{server}`. */
  call(server: string, tool: string, outcome: McpOutcome, seconds: number): void;
  /** The servers' states now, for `gw_mcp_server_up{server}` (read at scrape time). */
  servers(states: () => Iterable<{ name: string; up: boolean }>): void;
}

export interface McpHost extends PipelineHost {
  /** The snapshot new requests take: `config.mcp_servers`, `config.mcp`, the keys. */
  readonly snapshot: Snapshot;
  /** The gateway's root store (the MCP gateway works in its `mcp` namespace). */
  readonly store: Store;
  /** Other instances share the store: runtime servers are polled, sessions are served by any of them. */
  readonly sharedStore: boolean;
  readonly log: Logger;
  readonly routes: RouteRegistry;
  readonly mcpMetrics: McpMetrics;
}
