/**
 * Real MCP servers for tests, built with the official SDK (`@modelcontextprotocol/sdk` 1.x,
 * the 2025-11-25 server most MCP servers run today) on 127.0.0.1:
 *
 * - `startHttpMcp`: an `McpServer` over streamable HTTP with sessions, as the SDK's own example
 *   wires it, except that a request naming an unknown session gets 404 "Session not found"
 *   (what the spec asks, and what a server that restarted answers). Its tools: `echo`,
 *   `resolve-library-id` (a hyphenated name), `fail` (answers `isError: true`), `slow`
 *   (progress notifications, honours cancellation), `whoami` (its own session id); a prompt
 *   `greet` and a resource `<name>://readme`. Every HTTP request it receives is recorded
 *   (method, headers, body), and it can be killed and restarted on the same port.
 * - `startSseMcp`: the same tools over the old HTTP+SSE transport (GET /sse, POST /messages).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export interface ReceivedMcp {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** The JSON-RPC message (POST), or undefined. */
  body: any;
}

export interface McpUpstream {
  /** Where to point `[mcp_servers.<name>] url`. */
  url: string;
  port: number;
  received: ReceivedMcp[];
  /** Session ids this server issued. */
  sessions: Set<string>;
  /** Calls of `slow` that saw their cancellation. */
  cancelled: string[];
  /** Calls of `slow` running now, and the most that ever ran at once. */
  load: { inflight: number; max: number };
  /** Stops listening and drops every connection (a crash as clients see it). */
  kill(): Promise<void>;
  /** Listens again on the same port; every session is forgotten. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export interface McpUpstreamOptions {
  /** Names the resource's scheme and shows in `echo`'s answer; default `web`. */
  name?: string;
  /** More tools: name → answer text. */
  extraTools?: Record<string, string>;
}

/** The test tools on a fresh McpServer. `sessionId`: what `whoami` answers. */
function buildServer(
  o: Required<McpUpstreamOptions>,
  cancelled: string[],
  sessionId: () => string | undefined,
  load: { inflight: number; max: number },
): McpServer {
  const s = new McpServer({ name: `test-${o.name}`, version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
  s.registerTool('echo', { description: 'Echoes text', inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: 'text', text: `${o.name}: ${text}` }],
  }));
  s.registerTool('resolve-library-id', { description: 'A hyphenated name', inputSchema: { libraryName: z.string() } }, async ({ libraryName }) => ({
    content: [{ type: 'text', text: `/lib/${libraryName}` }],
  }));
  s.registerTool('fail', { description: 'Always fails' }, async () => ({ isError: true, content: [{ type: 'text', text: 'it failed on purpose' }] }));
  s.registerTool('slow', { description: 'Takes a while, with progress', inputSchema: { ms: z.number(), steps: z.number() } }, async ({ ms, steps }, extra) => {
    const token = extra._meta?.progressToken;
    load.max = Math.max(load.max, ++load.inflight);
    try {
      for (let i = 1; i <= steps; i++) {
        if (extra.signal.aborted) break;
        await sleep(ms / steps);
        if (token !== undefined)
          await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: steps } });
      }
    } finally {
      load.inflight--;
    }
    if (extra.signal.aborted) {
      cancelled.push(String(extra.requestId));
      return { isError: true, content: [{ type: 'text', text: 'cancelled' }] };
    }
    return { content: [{ type: 'text', text: `slept ${ms} ms` }] };
  });
  s.registerTool('whoami', { description: 'The upstream session id' }, async () => ({ content: [{ type: 'text', text: sessionId() ?? 'none' }] }));
  for (const [name, text] of Object.entries(o.extraTools))
    s.registerTool(name, { description: `extra ${name}` }, async () => ({ content: [{ type: 'text', text }] }));
  s.registerPrompt('greet', { description: 'Greets', argsSchema: { who: z.string() } }, ({ who }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Hello ${who} from ${o.name}` } }],
  }));
  s.registerResource('readme', `${o.name}://readme`, { mimeType: 'text/plain' }, async (uri) => ({
    contents: [{ uri: uri.href, text: `readme of ${o.name}` }],
  }));
  return s;
}

async function readJson(req: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString();
  return text ? JSON.parse(text) : undefined;
}

function rpcError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }));
}

async function listen(server: Server, port = 0): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

/** What both test servers record, as `McpUpstream` exposes it. */
function observations(): Pick<McpUpstream, 'received' | 'sessions' | 'cancelled' | 'load'> {
  return { received: [], sessions: new Set(), cancelled: [], load: { inflight: 0, max: 0 } };
}

/** An HTTP server for `handler` (a throw answers 500 -32603); `stop` drops every connection. */
function serve(handler: (req: IncomingMessage, res: ServerResponse) => Promise<unknown>) {
  const server = createServer((req, res) => void handler(req, res).catch(() => res.headersSent || rpcError(res, 500, -32603, 'internal error')));
  const stop = async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  };
  return { server, stop };
}

/** A streamable HTTP MCP server with sessions (see the file comment). */
export async function startHttpMcp(opts: McpUpstreamOptions = {}): Promise<McpUpstream> {
  const o = { name: opts.name ?? 'web', extraTools: opts.extraTools ?? {} };
  const seen = observations();
  const { received, sessions, cancelled, load } = seen;
  let transports = new Map<string, StreamableHTTPServerTransport>();
  const handler = async (req: IncomingMessage, res: ServerResponse) => {
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    received.push({ method: req.method!, url: req.url!, headers: req.headers, body });
    const sid = req.headers['mcp-session-id'] as string | undefined;
    if (sid !== undefined) {
      const t = transports.get(sid);
      if (!t) return rpcError(res, 404, -32001, 'Session not found');
      return t.handleRequest(req, res, body);
    }
    if (req.method !== 'POST' || body?.method !== 'initialize') return rpcError(res, 400, -32000, 'Bad Request: No valid session ID provided');
    let id: string | undefined;
    const t = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => {
        id = sessionId;
        sessions.add(sessionId);
        transports.set(sessionId, t);
      },
    });
    t.onclose = () => {
      if (id) transports.delete(id);
    };
    await buildServer(o, cancelled, () => id, load).connect(t);
    await t.handleRequest(req, res, body);
  };
  let http = serve(handler);
  const port = await listen(http.server);
  const stop = async () => {
    await http.stop();
    for (const t of transports.values()) await t.close().catch(() => undefined);
    transports = new Map();
  };
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    ...seen,
    kill: stop,
    async restart() {
      http = serve(handler);
      await listen(http.server, port);
    },
    close: stop,
  };
}

/** The same tools over the HTTP+SSE transport of 2024-11-05 (GET /sse, then POST /messages?sessionId=). */
export async function startSseMcp(opts: McpUpstreamOptions = {}): Promise<McpUpstream> {
  const o = { name: opts.name ?? 'old', extraTools: opts.extraTools ?? {} };
  const seen = observations();
  const { received, sessions, cancelled, load } = seen;
  const transports = new Map<string, SSEServerTransport>();
  const { server, stop } = serve(async (req, res) => {
    const url = new URL(req.url!, 'http://x');
    if (req.method === 'GET' && url.pathname === '/sse') {
      received.push({ method: 'GET', url: req.url!, headers: req.headers, body: undefined });
      const t = new SSEServerTransport('/messages', res);
      transports.set(t.sessionId, t);
      sessions.add(t.sessionId);
      t.onclose = () => transports.delete(t.sessionId);
      await buildServer(o, cancelled, () => t.sessionId, load).connect(t);
      return;
    }
    if (req.method === 'POST' && url.pathname === '/messages') {
      const body = await readJson(req);
      received.push({ method: 'POST', url: req.url!, headers: req.headers, body });
      const t = transports.get(url.searchParams.get('sessionId') ?? '');
      if (!t) return rpcError(res, 404, -32001, 'Session not found');
      return t.handlePostMessage(req, res, body);
    }
    rpcError(res, 404, -32601, 'not found');
  });
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}/sse`,
    port,
    ...seen,
    kill: stop,
    restart: () => listen(server, port).then(() => undefined),
    close: stop,
  };
}
