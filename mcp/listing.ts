/**
 * A server as `GET /v1/admin/mcp-servers` lists it (and the console shows it): its settings
 * with every secret left out (header and environment values, a URL's password and secret
 * query parameters), its state and last error, its tools under both names, and the figures
 * of the last minutes (stats.ts). The one-server view adds the stdio child's stderr lines.
 */
import { rfc3339 } from '../lib/key-settings.ts';
import { redactUrl } from '../lib/redact.ts';
import { compileModelPatterns } from '../lib/model-glob.ts';
import type { Catalog } from './catalog.ts';
import { fullName } from './names.ts';
import type { ServerStats } from './stats.ts';
import type { ServerState, UpstreamServer } from './upstream/connection.ts';

export interface ToolListing {
  /** The name a client of `/mcp` calls. */
  name: string;
  /** The server's own name (`/mcp/<server>`). */
  own: string;
  /** True when `name` is hashed (the own name would not fit). */
  hashed: boolean;
  /** USD per call. */
  price: number;
  description: string | null;
}

export interface ServerListing {
  name: string;
  source: 'file' | 'runtime';
  transport: string;
  url: string | null;
  command: string | null;
  args: string[] | null;
  /** The child's process id while a stdio server runs. */
  pid: number | null;
  /** Header names sent upstream (never their values). */
  headers: string[];
  /** Environment variable names given to the child (never their values). */
  env: string[];
  timeout_seconds: number;
  cost_per_call: number;
  tool_costs: Record<string, number> | null;
  include_tools: string[] | null;
  exclude_tools: string[] | null;
  max_concurrency: number | null;
  state: ServerState;
  /** When `state` last changed (RFC 3339). */
  since: string;
  last_error: string | null;
  last_error_at: string | null;
  protocol_version: string | null;
  server_info: { name: string; version: string } | null;
  /** Each client session gets an upstream session of its own (a streamable HTTP server with sessions). */
  per_session: boolean;
  tools: ToolListing[];
  prompts: number;
  resources: number;
  /** Entries refused when the catalog was built (a taken name or URI). */
  warnings: string[];
  stats: ServerStats | null;
  created_at?: string;
  /** The one-server view: the child's last stderr lines (stdio). */
  stderr?: string[];
}

/** `server`'s listing; `catalog` gives its tools' names while it is up (the names it would have while it is down). */
export function serverListing(
  server: UpstreamServer,
  source: 'file' | 'runtime',
  catalog: Catalog,
  maxName: number,
  stats: ServerStats | undefined,
  createdAt?: string,
): ServerListing {
  const c = server.config;
  const part = catalog.servers.get(server.name);
  const tools: ToolListing[] = [];
  if (part) for (const e of part.tools.values()) tools.push(toolOf(e.full, e.own, e.price, e.plain.description));
  else {
    const inc = c.include_tools && compileModelPatterns(c.include_tools);
    const exc = c.exclude_tools && compileModelPatterns(c.exclude_tools);
    for (const t of server.lists.tools) {
      if ((inc && !inc(t.name)) || exc?.(t.name)) continue;
      const price = c.tool_costs && Object.hasOwn(c.tool_costs, t.name) ? c.tool_costs[t.name]! : c.cost_per_call;
      tools.push(toolOf(fullName(server.name, t.name, maxName), t.name, price, t.description));
    }
  }
  const out: ServerListing = {
    name: server.name,
    source,
    transport: c.transport,
    url: c.url === undefined ? null : redactUrl(c.url),
    command: c.command ?? null,
    args: c.args ?? null,
    pid: server.pid ?? null,
    headers: Object.keys(c.headers ?? {}),
    env: Object.keys(c.env ?? {}),
    timeout_seconds: c.timeout_seconds,
    cost_per_call: c.cost_per_call,
    tool_costs: c.tool_costs ?? null,
    include_tools: c.include_tools ?? null,
    exclude_tools: c.exclude_tools ?? null,
    max_concurrency: c.max_concurrency ?? null,
    state: server.state,
    since: rfc3339(server.since),
    last_error: server.lastError ?? null,
    last_error_at: server.lastErrorAt === undefined ? null : rfc3339(server.lastErrorAt),
    protocol_version: server.protocolVersion ?? null,
    server_info: server.serverInfo ?? null,
    per_session: server.sessionful,
    tools,
    prompts: server.lists.prompts.length,
    resources: server.lists.resources.length + server.lists.templates.length,
    warnings: part ? [...part.warnings] : [],
    stats: stats ?? null,
  };
  if (createdAt) out.created_at = createdAt;
  return out;
}

function toolOf(name: string, own: string, price: number, description: string | undefined): ToolListing {
  return { name, own, hashed: !name.endsWith(`__${own}`), price, description: description ?? null };
}
