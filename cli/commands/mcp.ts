/**
 * `gw mcp list|show|add|remove`: the admin API's /v1/admin/mcp-servers. `list` shows each
 * server's state and the last 5 minutes (calls per minute, p50/p95 in ms, error rate);
 * `show` one server with its tools under both names and a stdio server's stderr lines.
 */
import { adminClient } from '../client/http.ts';
import { note, printJson, printList, type Column } from '../client/output.ts';

/** A server as GET /v1/admin/mcp-servers lists it (no secrets: header and env names only). */
interface ServerRow {
  name: string;
  source: string;
  transport: string;
  url: string | null;
  command: string | null;
  args: string[] | null;
  state: string;
  since: string;
  last_error: string | null;
  protocol_version: string | null;
  tools: Array<{ name: string; own: string; hashed: boolean; price: number }>;
  warnings: string[];
  stats: { calls_per_minute: number; p50_ms: number | null; p95_ms: number | null; error_rate: number | null } | null;
  stderr?: string[];
}

const pct = (x: number | null | undefined) => (x === null || x === undefined ? undefined : `${Math.round(x * 1000) / 10}%`);

const COLUMNS: ReadonlyArray<Column<ServerRow>> = [
  { header: 'NAME', value: (s) => s.name },
  { header: 'SOURCE', value: (s) => s.source },
  { header: 'TRANSPORT', value: (s) => s.transport },
  { header: 'STATE', value: (s) => s.state },
  { header: 'TOOLS', value: (s) => s.tools.length, right: true },
  { header: 'CALLS/MIN', value: (s) => s.stats?.calls_per_minute, right: true },
  { header: 'P50_MS', value: (s) => s.stats?.p50_ms, right: true },
  { header: 'P95_MS', value: (s) => s.stats?.p95_ms, right: true },
  { header: 'ERRORS', value: (s) => pct(s.stats?.error_rate), right: true },
  { header: 'TARGET', value: (s) => s.url ?? [s.command, ...(s.args ?? [])].join(' ') },
  { header: 'LAST_ERROR', value: (s) => s.last_error },
];

const TOOL_COLUMNS: ReadonlyArray<Column<ServerRow['tools'][number]>> = [
  { header: 'TOOL', value: (t) => t.name },
  { header: 'OWN_NAME', value: (t) => (t.hashed ? t.own : '') },
  { header: 'USD/CALL', value: (t) => t.price, right: true },
];

const path = (name: string) => `/v1/admin/mcp-servers/${encodeURIComponent(name)}`;

export async function list(o: { json?: boolean }): Promise<void> {
  const res = await adminClient().call<{ data: ServerRow[] }>('GET', '/v1/admin/mcp-servers');
  printList(o.json === true, res.data, COLUMNS, res.data);
}

export async function show(name: string, o: { json?: boolean }): Promise<void> {
  const s = await adminClient().call<ServerRow>('GET', path(name));
  if (o.json) return printJson(s);
  printList(false, s, COLUMNS, [s]);
  process.stdout.write('\n');
  printList(false, s.tools, TOOL_COLUMNS, s.tools);
  for (const w of s.warnings) note(`warning: ${w}`);
  if (s.stderr?.length) process.stdout.write(`\nstderr (last ${s.stderr.length} lines):\n${s.stderr.map((l) => `  ${l}`).join('\n')}\n`);
}

interface AddFlags {
  url?: string;
  transport?: string;
  header?: Record<string, string>;
  command?: string;
  arg?: string[];
  env?: Record<string, string>;
  cwd?: string;
  timeout?: number;
  cost?: number;
  include?: string[];
  exclude?: string[];
  maxConcurrency?: number;
  json?: boolean;
}

/** Adds a server; prints its row (its state once the first connection attempt ended). */
export async function add(name: string, o: AddFlags): Promise<void> {
  const body: Record<string, unknown> = { name };
  if (o.transport !== undefined) body.transport = o.transport;
  if (o.url !== undefined) body.url = o.url;
  if (o.header !== undefined) body.headers = o.header;
  if (o.command !== undefined) body.command = o.command;
  if (o.arg !== undefined) body.args = o.arg;
  if (o.env !== undefined) body.env = o.env;
  if (o.cwd !== undefined) body.cwd = o.cwd;
  if (o.timeout !== undefined) body.timeout_seconds = o.timeout;
  if (o.cost !== undefined) body.cost_per_call = o.cost;
  if (o.include !== undefined) body.include_tools = o.include;
  if (o.exclude !== undefined) body.exclude_tools = o.exclude;
  if (o.maxConcurrency !== undefined) body.max_concurrency = o.maxConcurrency;
  const s = await adminClient().call<ServerRow>('POST', '/v1/admin/mcp-servers', { body });
  if (o.json) return printJson(s);
  printList(false, s, COLUMNS, [s]);
  if (s.state !== 'up') note(`MCP server '${s.name}' is ${s.state}${s.last_error ? `: ${s.last_error}` : ''}; gw keeps reconnecting`);
}

export async function remove(name: string, o: { json?: boolean }): Promise<void> {
  await adminClient().call('DELETE', path(name));
  if (o.json) return printJson({ name, removed: true });
  process.stdout.write(`removed MCP server ${name}\n`);
}
