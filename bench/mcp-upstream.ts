/**
 * The MCP bench's upstream (`node bench/mcp-upstream.ts`): an SDK 1.x `McpServer` over
 * streamable HTTP with sessions, wired as the SDK's example does, with one `echo` tool that
 * answers at once. Prints `mcp upstream listening on <port>`.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

const transports = new Map<string, StreamableHTTPServerTransport>();

async function body(req: IncomingMessage): Promise<unknown> {
  const parts: Buffer[] = [];
  for await (const c of req) parts.push(c as Buffer);
  return parts.length ? JSON.parse(Buffer.concat(parts).toString('utf8')) : undefined;
}

const server = createServer({ keepAliveTimeout: 120_000 }, (req, res) => {
  void (async () => {
    const parsed = req.method === 'POST' ? await body(req) : undefined;
    const sid = req.headers['mcp-session-id'];
    const known = typeof sid === 'string' ? transports.get(sid) : undefined;
    if (known) return known.handleRequest(req, res, parsed);
    if (sid !== undefined) return void res.writeHead(404).end('{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Session not found"}}');
    const t = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => void transports.set(id, t) });
    const mcp = new McpServer({ name: 'bench', version: '1.0.0' });
    mcp.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
    await mcp.connect(t);
    await t.handleRequest(req, res, parsed);
  })().catch(() => {
    if (!res.headersSent) res.writeHead(500).end();
  });
});
server.listen(0, '127.0.0.1', () => {
  const a = server.address();
  process.stdout.write(`mcp upstream listening on ${typeof a === 'object' && a ? a.port : 0}\n`);
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
