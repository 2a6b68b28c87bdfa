/**
 * The MCP gateway's families of `/metrics` (docs/metrics.md), on the gateway's registry:
 *
 *   gw_mcp_calls_total{server,tool,outcome}     tools/call by server, the tool's own name and
 *                                               outcome (ok|tool_error|upstream_error|denied|limited)
 *   gw_mcp_call_duration_seconds{server}        arrival to answer of each tools/call
 *   gw_mcp_server_up{server}                    1 while the server is up, 0 otherwise
 *
 * Each tools/call is also a gateway request of route `mcp` in gw_requests_total and the
 * duration histograms (model = the tool's full name, provider = its server).
 */
import type { Registry } from 'prom-client';
import type { McpMetrics } from '../../mcp/index.ts';
import type { McpOutcome } from '../../sdk/facts.ts';
import { family, HistoMap, type Value } from './families.ts';

// seconds: a local stdio tool answers in a millisecond, a remote search in many seconds
const CALL_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

interface CallSeries {
  server: string;
  tool: string;
  outcome: McpOutcome;
  n: number;
}

export class McpCallMetrics implements McpMetrics {
  private readonly calls = new Map<string, CallSeries>();
  private readonly duration = new HistoMap('server', CALL_BUCKETS);
  private states: () => Iterable<{ name: string; up: boolean }> = () => [];

  constructor(registry: Registry) {
    family(registry, 'gw_mcp_calls_total', 'MCP tools/call by server, tool (its own name) and outcome', 'counter', () =>
      [...this.calls.values()].map((s) => ({ labels: { server: s.server, tool: s.tool, outcome: s.outcome }, value: s.n })),
    );
    this.duration.expose(registry, 'gw_mcp_call_duration_seconds', 'MCP tools/call from arrival to answer, by server');
    family(registry, 'gw_mcp_server_up', 'MCP servers: 1 while up, 0 while connecting or down', 'gauge', () => {
      const out: Value[] = [];
      for (const s of this.states()) out.push({ labels: { server: s.name }, value: s.up ? 1 : 0 });
      return out;
    });
  }

  call(server: string, tool: string, outcome: McpOutcome, seconds: number): void {
    // a tool no server has is the client's text: never a label value
    if (!server) tool = '';
    const k = `${server}\u0000${tool}\u0000${outcome}`;
    const s = this.calls.get(k);
    if (s) s.n++;
    else this.calls.set(k, { server, tool, outcome, n: 1 });
    if (server) this.duration.observe(server, seconds);
  }

  servers(states: () => Iterable<{ name: string; up: boolean }>): void {
    this.states = states;
  }
}
