/**
 * One exchange as it happens → a cassette entry: status, allowed headers, the body (an SSE
 * answer event by event with its delays) or the transport failure; secrets scrubbed at the end.
 */
import { randomBytes } from 'node:crypto';
import { TextDecoder } from 'node:util';
import { createParser, type EventSourceParser } from 'eventsource-parser';
import type { ExchangeSink, ExchangeStart } from 'gw/plugin';
import { canonicalBody } from './canonical.ts';
import { CASSETTE_VERSION, type CassetteEntry, type RecordedError, type RecordedEvent, type RecordedGw, type RecordedResponse } from './entry.ts';
import type { HeaderAllowList } from './headers.ts';
import { routeOf } from './route.ts';

/** What a capture keeps and drops. */
export interface CaptureSettings {
  headers: { request: HeaderAllowList; response: HeaderAllowList };
  /** Largest body kept, bytes; the rest of a larger one is dropped and the entry marked incomplete. */
  maxBytes: number;
}

/** Default largest body kept: gw's own request limit. */
export const DEFAULT_MAX_BYTES = 33_554_432;

export class ExchangeCapture implements ExchangeSink {
  readonly start: ExchangeStart;
  readonly #settings: CaptureSettings;
  #status: number | undefined;
  #headers: Record<string, string> = {};
  #respondedAt = 0;
  #events: RecordedEvent[] | undefined;
  #parser: EventSourceParser | undefined;
  #decoder: TextDecoder | undefined;
  /** When the last event (or the headers) arrived, for the next event's delay. */
  #lastAt = 0;
  /** When the chunk being parsed arrived. */
  #chunkAt = 0;
  #chunks: Buffer[] = [];
  #bytes = 0;
  #overflow = false;
  #ended = false;
  #endedAt = 0;
  #error: RecordedError | undefined;

  constructor(start: ExchangeStart, settings: CaptureSettings) {
    this.start = start;
    this.#settings = settings;
  }

  /** The upstream finished its answer, or the exchange failed: nothing more will come. */
  get settled(): boolean {
    return this.#ended || this.#error !== undefined;
  }

  /** The status it answered with (undefined before headers or on a failure). */
  get status(): number | undefined {
    return this.#status;
  }

  response(status: number, headers: Readonly<Record<string, string | string[] | undefined>>): void {
    this.#respondedAt = performance.now();
    this.#lastAt = this.#respondedAt;
    this.#status = status;
    this.#headers = this.#settings.headers.response.keep(headers);
    const type = headers['content-type'];
    if (String(type ?? '').includes('text/event-stream')) {
      const events: RecordedEvent[] = [];
      this.#events = events;
      this.#decoder = new TextDecoder();
      this.#parser = createParser({
        onEvent: (m) => {
          events.push(
            m.event === undefined
              ? { delay_ms: round(this.#chunkAt - this.#lastAt), data: m.data }
              : { delay_ms: round(this.#chunkAt - this.#lastAt), event: m.event, data: m.data },
          );
          this.#lastAt = this.#chunkAt;
        },
      });
    }
  }

  data(chunk: Buffer): void {
    if (this.#overflow) return;
    this.#bytes += chunk.length;
    if (this.#bytes > this.#settings.maxBytes) {
      this.#overflow = true;
      return;
    }
    if (this.#parser) {
      this.#chunkAt = performance.now();
      this.#parser.feed(this.#decoder!.decode(chunk, { stream: true }));
    } else this.#chunks.push(chunk);
  }

  end(): void {
    if (this.settled) return;
    this.#ended = true;
    this.#endedAt = performance.now();
    if (this.#parser && !this.#overflow) {
      this.#chunkAt = this.#endedAt;
      // an upstream that omits the blank line after its last event still sent that event
      this.#parser.feed(`${this.#decoder!.decode()}\n\n`);
    }
  }

  error(err: Error): void {
    if (this.settled) return;
    this.#endedAt = performance.now();
    const code = (err as { code?: string }).code ?? '';
    const kind = /TIMEOUT/i.test(code) || /timeout/i.test(err.name) ? 'timeout' : this.#status === undefined ? 'connect' : 'reset';
    this.#error = { kind, message: `${code ? `${code}: ` : ''}${err.message}`.slice(0, 500) };
  }

  /** The entry as one scrubbed JSON line (no newline); a running exchange is taken as it is now (`readWhole`: complete so far). */
  toLine(scrub: (text: string) => string, gw: RecordedGw | undefined, readWhole = false): string {
    const s = this.start;
    const request = canonicalBody(s.body, scrub);
    const response: RecordedResponse = {};
    if (this.#status !== undefined) {
      response.status = this.#status;
      response.headers = this.#headers;
      response.delay_ms = round(this.#respondedAt - s.startedAt);
      const complete = !this.#overflow && (this.#ended || (readWhole && this.#error === undefined));
      if (this.#events) {
        response.events = this.#events;
        response.complete = complete;
      } else {
        const text = Buffer.concat(this.#chunks, Math.min(this.#bytes, this.#settings.maxBytes)).toString('utf8');
        const parsed = parseJson(text);
        if (parsed.ok) response.body = parsed.value;
        else response.text = text;
        if (!complete) response.complete = false;
      }
    }
    if (this.#error) response.error = this.#error;
    const entry: CassetteEntry = {
      v: CASSETTE_VERSION,
      id: newEntryId(),
      time: new Date(performance.timeOrigin + s.startedAt).toISOString(),
      provider: s.upstream.provider,
      kind: s.upstream.kind,
      upstream: { ...s.upstream.settings },
      route: routeOf(s.method, s.path),
      request: { headers: this.#settings.headers.request.keep(s.headers), body: request.body, hash: request.hash },
      response,
      ...(gw && { gw }),
      duration_ms: round((this.#endedAt || performance.now()) - s.startedAt),
    };
    return scrub(JSON.stringify(entry));
  }
}

/** A fresh entry id: `e-` and 16 hex digits. */
export function newEntryId(): string {
  return `e-${randomBytes(8).toString('hex')}`;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  const head = text.trimStart()[0];
  if (head !== '{' && head !== '[') return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function round(ms: number): number {
  return ms > 0 ? Math.round(ms * 10) / 10 : 0;
}
