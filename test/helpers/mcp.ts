/**
 * gw's MCP gateway in tests: config sections for the test servers (test/helpers/mcp-upstream.ts
 * and the npm stdio servers), waiting for servers to be up, the SDK's clients pointed at `/mcp`
 * with a gw key, and raw JSON-RPC posts for what a client library would never send.
 */
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ADMIN_TOKEN } from './gateway.ts';

const require = createRequire(import.meta.url);
/** The npm stdio servers' entry points (run with this process's node). */
export const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
export const FILESYSTEM = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');

/** `[mcp_servers.<name>]` for a streamable HTTP (or `sse`) server at `url`, plus `extra` lines. */
export function httpServer(name: string, url: string, extra = '', transport: 'http' | 'sse' = 'http'): string {
  return `[mcp_servers.${name}]\ntransport = "${transport}"\nurl = "${url}"\n${extra}\n`;
}

/** `[mcp_servers.<name>]` for a stdio server run by this process's node: `script` and its arguments. */
export function stdioServer(name: string, script: string, args: string[], extra = ''): string {
  return `[mcp_servers.${name}]\ncommand = ${JSON.stringify(process.execPath)}\nargs = ${JSON.stringify([script, ...args])}\n${extra}\n`;
}

/** A key section with its `mcp_tools` (undefined: none, no MCP access). */
export function keySection(name: string, key: string, tools: string[] | undefined, extra = ''): string {
  return `[keys.${name}]\nkey = "${key}"\n${tools === undefined ? '' : `mcp_tools = ${JSON.stringify(tools)}\n`}${extra}\n`;
}

/** The admin API's MCP server listing. */
export async function mcpServers(gw: { url: string }): Promise<any[]> {
  const r = await fetch(`${gw.url}/v1/admin/mcp-servers`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  return ((await r.json()) as { data: any[] }).data;
}

/**
 * Waits until every server in `names` is `up` on `gw` (each in its catalog), at most `ms`.
 * @throws naming the servers still not up and their last errors.
 */
export async function waitUp(gw: { url: string }, names: string[], ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  let list: any[] = [];
  while (Date.now() < deadline) {
    list = await mcpServers(gw);
    if (names.every((n) => list.find((s) => s.name === n)?.state === 'up')) return;
    await sleep(50);
  }
  throw new Error(`MCP servers not up: ${JSON.stringify(list.map((s) => [s.name, s.state, s.last_error]))}`);
}

/** An SDK 1.x client (2025-11-25, sessions) connected to `gw`'s `path` with `key`. */
export async function client(gw: { url: string }, key: string, path = '/mcp'): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(`${gw.url}${path}`), { requestInit: { headers: { authorization: `Bearer ${key}` } } });
  const c = new Client({ name: 'gw-test', version: '1.0.0' });
  await c.connect(transport);
  return { client: c, transport };
}

/** The envelope a 2026-07-28 request carries in `params._meta`. */
export const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw-test', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** A raw POST to `/mcp` (JSON answer or the first SSE data): status, headers and the parsed JSON-RPC answer. */
export async function rpc(
  gw: { url: string },
  key: string | undefined,
  body: unknown,
  headers: Record<string, string> = {},
  path = '/mcp',
): Promise<{ status: number; headers: Headers; json: any }> {
  const r = await fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
      ...headers,
    },
    body: JSON.stringify(body),
  });
  const text = await r.text();
  let json: any;
  if ((r.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const data = text.split('\n').filter((l) => l.startsWith('data: '));
    json = data.length ? JSON.parse(data[data.length - 1]!.slice(6)) : undefined;
  } else json = text ? JSON.parse(text) : undefined;
  return { status: r.status, headers: r.headers, json };
}

/**
 * A raw POST whose answer is an SSE stream: every JSON-RPC message on it, in order (what the
 * client received, before a client library's dispatch could reorder anything).
 */
export async function rpcStream(gw: { url: string }, key: string, body: unknown, headers: Record<string, string> = {}): Promise<any[]> {
  const r = await fetch(`${gw.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${key}`, ...headers },
    body: JSON.stringify(body),
  });
  const text = await r.text();
  if (!(r.headers.get('content-type') ?? '').startsWith('text/event-stream')) throw new Error(`not a stream: ${r.status} ${text}`);
  return text
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)));
}

/** Opens a 2025-11-25 session with raw requests (initialize, then initialized); its id. */
export async function rawSession(gw: { url: string }, key: string, version = '2025-11-25', path = '/mcp'): Promise<string> {
  const init = await rpc(
    gw,
    key,
    { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } },
    {},
    path,
  );
  const sid = init.headers.get('mcp-session-id');
  if (init.status !== 200 || !sid) throw new Error(`initialize: ${init.status} ${JSON.stringify(init.json)}`);
  await rpc(gw, key, { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': sid, 'mcp-protocol-version': version }, path);
  return sid;
}

/** The request log's MCP entries, newest first, once `until` holds of them (the log is written after the answer; at most 2 s). */
export async function mcpLog(gw: { url: string }, until: (entries: any[]) => boolean): Promise<any[]> {
  let entries: any[] = [];
  for (let i = 0; i < 100; i++) {
    const r = await fetch(`${gw.url}/v1/requests?route=mcp&limit=1000`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    entries = (await r.json()) as any[];
    if (until(entries)) break;
    await sleep(20);
  }
  return entries;
}
