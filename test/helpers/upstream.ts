/**
 * Mock upstreams for tests: real HTTP servers on 127.0.0.1 (ephemeral port) that record
 * what they received and answer with recorded vendor payloads.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

/** One request the upstream received. */
export interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** Parsed JSON body (undefined when not JSON). */
  json: any;
}

export type Handler = (req: Received, res: ServerResponse, raw: IncomingMessage) => void | Promise<void>;

export interface MockUpstream {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  received: Received[];
  /** Requests whose connection closed before the response ended (client aborted). */
  aborted: Received[];
  /** Replace the handler. */
  handle(h: Handler): void;
  close(): Promise<void>;
}

/** Starts a mock upstream answering with `handler`. */
export async function startUpstream(handler: Handler): Promise<MockUpstream> {
  let h = handler;
  const received: Received[] = [];
  const aborted: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = body ? JSON.parse(body) : undefined;
      } catch {
        json = undefined;
      }
      const r: Received = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, json };
      received.push(r);
      res.once('close', () => {
        if (!res.writableFinished) aborted.push(r);
      });
      Promise.resolve(h(r, res, req)).catch((err) => {
        if (!res.headersSent) res.writeHead(500);
        res.end(String(err));
      });
    });
  });
  // Node's default, said out loud: undici (gw's upstream client) drops a connection after each
  // response when the server's Keep-Alive timeout is not above its 2 s threshold, so a shorter
  // one here made every gw -> mock request open a new connection (the suite ran 35 s slower)
  server.keepAliveTimeout = 5000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    received,
    aborted,
    handle(next) {
      h = next;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** The fixtures folder (ends in a slash). */
export const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

/** Text of `test/fixtures/<path>`. */
export function fixture(path: string): string {
  return readFileSync(FIXTURES + path, 'utf8');
}

/** Parsed JSON of `test/fixtures/<path>`. */
export function fixtureJson<T = any>(path: string): T {
  return JSON.parse(fixture(path)) as T;
}

/** Answers JSON. */
export function replyJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(text);
}

/**
 * Streams SSE text event by event (split on blank lines, LF or CRLF framing kept), with
 * `delayMs` between events; `cutAfter` ends the connection abruptly after that many events.
 */
export async function replySse(
  res: ServerResponse,
  sse: string,
  opts: { delayMs?: number; cutAfter?: number; headers?: Record<string, string> } = {},
): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...opts.headers });
  const sep = sse.includes('\r\n\r\n') ? '\r\n\r\n' : '\n\n';
  const events = sse.split(sep).filter((e) => e.trim() !== '');
  let n = 0;
  for (const ev of events) {
    if (res.destroyed) return;
    if (opts.cutAfter !== undefined && n >= opts.cutAfter) {
      res.socket?.destroy();
      return;
    }
    res.write(ev + sep);
    n++;
    if (opts.delayMs) await new Promise((r) => setTimeout(r, opts.delayMs));
  }
  res.end();
}

/** Frames JSON objects (or raw strings) as `data: …\n\n` events, with `data: [DONE]` when `done`. */
export function toSse(items: unknown[], done = true): string {
  return items.map((i) => `data: ${typeof i === 'string' ? i : JSON.stringify(i)}\n\n`).join('') + (done ? 'data: [DONE]\n\n' : '');
}
