/**
 * A round-robin HTTP load balancer for tests: each request goes to the next backend in turn,
 * whatever session it belongs to (no affinity: the case that breaks gateways keeping sessions
 * in memory). A backend that refuses a connection is taken out of the rotation and the request
 * sent to the next one, as a load balancer's health check would; streams are piped both ways.
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RoundRobin {
  url: string;
  /** Requests each backend answered. */
  served: number[];
  close(): Promise<void>;
}

export async function startRoundRobin(backends: string[]): Promise<RoundRobin> {
  let next = 0;
  const served = backends.map(() => 0);
  const dead = new Set<number>();
  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer, tries: number) => {
    let i = next++ % backends.length;
    for (let k = 0; k < backends.length && dead.has(i); k++) i = (i + 1) % backends.length;
    const target = new URL(req.url!, backends[i]);
    const up = request(target, { method: req.method, headers: req.headers }, (answer) => {
      served[i]!++;
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    up.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNREFUSED') dead.add(i);
      if (!res.headersSent && (err.code === 'ECONNREFUSED' || err.code === 'ECONNRESET') && tries < backends.length) return forward(req, res, body, tries + 1);
      if (!res.headersSent) res.writeHead(502).end(err.message);
      else res.destroy();
    });
    res.once('close', () => up.destroy());
    up.end(body);
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => forward(req, res, Buffer.concat(chunks), 1));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    served,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
