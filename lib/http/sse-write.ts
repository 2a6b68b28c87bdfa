/**
 * Writing an SSE response to the client: headers once, then each event as it comes,
 * awaiting `drain` only under backpressure, and a `: ping` comment after every
 * `keepAliveMs` of silence so proxies and load balancers keep the connection.
 */
import type { ServerResponse } from 'node:http';

export const KEEP_ALIVE_MS = 15_000;
const PING = ': ping\n\n';

export class SseWriter {
  private readonly res: ServerResponse;
  private readonly ping: string;
  private timer: NodeJS.Timeout | undefined;
  /** Keep-alive ticks since the last write; a counter, so writes never read the clock. */
  private idle = 0;
  /** True once the client went away (the response closed before we ended it). */
  closed = false;

  /** @param ping what a keep-alive writes (an SSE comment by default; a JSON-array stream needs whitespace). */
  constructor(res: ServerResponse, ping = PING) {
    this.res = res;
    this.ping = ping;
    res.once('close', () => {
      this.closed = true;
    });
  }

  /** Sends status 200 and the stream headers; starts the keep-alive timer. */
  open(headers: Record<string, string>, contentType = 'text/event-stream; charset=utf-8', keepAliveMs = KEEP_ALIVE_MS): void {
    this.res.writeHead(200, {
      ...headers,
      'content-type': contentType,
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
    });
    this.res.flushHeaders();
    const ticks = 15;
    this.timer = setInterval(() => {
      if (++this.idle < ticks || this.closed) return;
      this.idle = 0;
      this.res.write(this.ping);
    }, keepAliveMs / ticks);
    this.timer.unref();
  }

  /** Writes one pre-framed event; resolves after `drain` when the socket buffer is full. */
  write(text: string): Promise<void> | undefined {
    this.idle = 0;
    if (this.closed) return undefined;
    if (this.res.write(text)) return undefined;
    return drained(this.res);
  }

  /** Writes `data: <json>\n\n`. */
  data(json: string): Promise<void> | undefined {
    return this.write(`data: ${json}\n\n`);
  }

  /** Ends the response (idempotent). */
  end(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (!this.res.writableEnded) this.res.end();
  }
}

/** Resolves on `drain`, or on `close` so a vanished client never leaves us waiting. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** The `data:` field(s) of a payload: one line, or one per line of a multi-line payload. */
export function dataField(data: string): string {
  return data.indexOf('\n') < 0 ? `data: ${data}` : `data: ${data.split('\n').join('\ndata: ')}`;
}
