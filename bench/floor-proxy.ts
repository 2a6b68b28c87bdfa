/**
 * The bare-proxy floor of the headline (`node bench/floor-proxy.ts <upstream url>`): the least
 * an LLM proxy in Node can do per request — a `node:http` server reads the body, `JSON.parse`s
 * it (any proxy that routes by model must), sends the same bytes on with `undici.request` to
 * the same upstream (a GET without a body) and pipes the answer back, streams included. No
 * auth, no config, no translation, no logging. gw's throughput is compared with this one's, not with the
 * upstream's. Prints `floor listening on <port>`.
 */
import { createServer, type IncomingMessage } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { Agent, request } from 'undici';

const upstream = process.argv[2];
if (!upstream) throw new Error('usage: node bench/floor-proxy.ts http://127.0.0.1:<port>');

// gw's provider pool has no cap on connections either (lib/http/upstream.ts)
const agent = new Agent({ keepAliveTimeout: 30_000, pipelining: 1, connections: null });

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (d: Buffer) => parts.push(d));
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });
}

const server = createServer({ keepAliveTimeout: 120_000 }, (req, res) => {
  void (async () => {
    const post = req.method === 'POST';
    const body = post ? await readBody(req) : undefined;
    if (body && typeof (JSON.parse(body.toString('utf8')) as { model?: unknown }).model !== 'string') {
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"message":"model required"}}');
      return;
    }
    const up = await request(upstream + (req.url ?? '/'), {
      dispatcher: agent,
      method: post ? 'POST' : 'GET',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench-upstream' },
      body,
    });
    const type = up.headers['content-type'];
    res.writeHead(up.statusCode, typeof type === 'string' ? { 'content-type': type } : {});
    // flush each upstream read as it comes, as a proxy of a token stream must
    await pipeline(up.body, res);
  })().catch(() => {
    if (!res.headersSent) res.writeHead(502).end();
    else res.destroy();
  });
});
server.listen(0, '127.0.0.1', () => {
  const a = server.address();
  process.stdout.write(`floor listening on ${typeof a === 'object' && a ? a.port : 0}\n`);
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
