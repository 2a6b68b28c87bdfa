/**
 * The replay transport: an undici Dispatcher whose answers come from a cassette, so the
 * recorded kind's own code reads every exchange as it read the live one (cuts, timeouts and
 * unreachable hosts included). In a record mode, misses go to the real upstream and are appended.
 */
import type { UpstreamIdentity } from 'gw/plugin';
import { type ExchangeObserver, NonOwningDispatcher, observedDispatcher } from '../../lib/http/exchange.ts';
import { type Dispatcher, errors } from 'undici';
import { canonicalText } from './canonical.ts';
import type { CassetteEntry, RecordedResponse } from './entry.ts';
import { REPLAY_MISS } from './errors.ts';
import type { Matcher } from './matcher.ts';
import type { CassetteLine } from './reader.ts';
import { routeOf } from './route.ts';
import { encodeEvent } from './sse.ts';

/** Where misses go in a record mode. */
export interface ReplayRecording {
  /** The gateway's pool (the provider's upstream settings give the real origin). */
  pool: Dispatcher;
  /** Who hears each forwarded exchange (it writes it to the cassette). */
  observer: ExchangeObserver;
  upstream: UpstreamIdentity;
  /** true: every request goes to the upstream, recorded or not (`once` on an empty cassette). */
  everything: boolean;
}

export interface ReplaySettings {
  /** The cassette as configured, for messages. */
  cassette: string;
  provider: string;
  matcher: Matcher;
  /** The gateway's scrubber: a request is matched as it would have been recorded. */
  scrub(text: string): string;
  /** 0: as fast as possible; 1: the recorded pace; 2: twice as fast… */
  speed: number;
  record?: ReplayRecording;
  /** Told each time a recording is served. */
  served?(line: CassetteLine): void;
}

export class ReplayTransport extends NonOwningDispatcher {
  readonly #s: ReplaySettings;
  readonly #live: Dispatcher | undefined;

  constructor(settings: ReplaySettings) {
    super();
    this.#s = settings;
    const r = settings.record;
    this.#live = r && observedDispatcher(r.pool, [r.observer], r.upstream);
  }

  override dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const s = this.#s;
    if (this.#live && s.record!.everything) return this.#live.dispatch(opts, handler);
    const route = routeOf(opts.method, opts.path);
    const raw = rawBody(opts.body);
    let hit: CassetteLine | undefined;
    let text = '';
    try {
      // scrubbing costs a scan per detector: needed only when a recording was scrubbed
      text = canonicalText(raw, s.matcher.scrubbed ? s.scrub : keep);
      hit = s.matcher.take(route, text);
    } catch (err) {
      failAtOnce(handler, err as Error);
      return true;
    }
    if (hit) {
      s.served?.(hit);
      new Playback(hit.entry, handler, s.speed).start();
      return true;
    }
    if (this.#live) return this.#live.dispatch(opts, handler);
    // the miss quotes the request: scrubbed, whatever the cassette holds
    if (!s.matcher.scrubbed) text = canonicalText(raw, s.scrub);
    failAtOnce(handler, REPLAY_MISS({ cassette: s.cassette, provider: s.provider, route, miss: s.matcher.explain(route, text) }, { provider: s.provider }));
    return true;
  }
}

const keep = (text: string) => text;

/** A request body as text (gw's upstream client sends strings). */
function rawBody(body: Dispatcher.DispatchOptions['body']): string | undefined {
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  return undefined;
}

/** Fails a request before any answer, as a transport failure would. */
function failAtOnce(handler: Dispatcher.DispatchHandler, err: Error): void {
  const controller = new Playback(undefined, handler, 0);
  handler.onRequestStart?.(controller, {});
  if (!controller.aborted) handler.onResponseError?.(controller, err);
}

/** A recorded answer as bytes: made once per recording and shared by every playback (readers never write to them). */
interface Played {
  headers: Record<string, string>;
  chunks: Array<{ delayMs: number; data: Buffer }>;
}

/** Each recording's bytes event by event (a paced playback), and coalesced (speed 0). */
const played = new WeakMap<RecordedResponse, Played>();
const coalesced = new WeakMap<RecordedResponse, Played>();
/** Largest chunk a speed-0 playback hands the reader at once. */
const COALESCE_BYTES = 65_536;

function bytesOf(r: RecordedResponse, coalesce: boolean): Played {
  const cache = coalesce ? coalesced : played;
  let b = cache.get(r);
  if (b) return b;
  const headers: Record<string, string> = { ...r.headers };
  let chunks: Played['chunks'] = [];
  if (r.events && coalesce) {
    // as fast as possible: what a reader would get from a fast upstream, many events per read; the
    // events themselves, and so what the client receives, are the same
    let parts: string[] = [];
    let size = 0;
    for (const ev of r.events) {
      const text = encodeEvent(ev);
      if (size + text.length > COALESCE_BYTES && parts.length > 0) {
        chunks.push({ delayMs: 0, data: Buffer.from(parts.join('')) });
        parts = [];
        size = 0;
      }
      parts.push(text);
      size += text.length;
    }
    if (parts.length > 0) chunks.push({ delayMs: 0, data: Buffer.from(parts.join('')) });
  } else if (r.events) chunks = r.events.map((ev) => ({ delayMs: ev.delay_ms, data: Buffer.from(encodeEvent(ev)) }));
  else {
    const data = Buffer.from(r.text ?? (r.body === undefined ? '' : JSON.stringify(r.body)));
    if (r.complete !== false) headers['content-length'] = String(data.length);
    if (data.length > 0) chunks.push({ delayMs: 0, data });
  }
  b = { headers, chunks };
  cache.set(r, b);
  return b;
}

/** One recorded answer played to one request's handler: a cursor over its steps, each after its delay ÷ speed; a paused handler stops it. */
class Playback implements Dispatcher.DispatchController {
  aborted = false;
  paused = false;
  reason: Error | null = null;
  readonly #handler: Dispatcher.DispatchHandler;
  readonly #speed: number;
  readonly #response: RecordedResponse | undefined;
  readonly #bytes: Played | undefined;
  /** The next step: 0 the headers, 1…n the chunks, n + 1 the end. */
  #next = 0;
  #waited = false;
  #blocked = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(entry: CassetteEntry | undefined, handler: Dispatcher.DispatchHandler, speed: number) {
    this.#handler = handler;
    this.#speed = speed;
    this.#response = entry?.response;
    this.#bytes = entry && entry.response.status !== undefined ? bytesOf(entry.response, speed === 0) : undefined;
  }

  start(): void {
    this.#handler.onRequestStart?.(this, {});
    this.#run();
  }

  abort(reason: Error): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    clearTimeout(this.#timer);
    this.#handler.onResponseError?.(this, reason);
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    if (this.#blocked) {
      this.#blocked = false;
      this.#run();
    }
  }

  #run(): void {
    const r = this.#response!;
    const h = this.#handler;
    const chunks = this.#bytes?.chunks;
    const last = chunks ? chunks.length + 1 : 0;
    while (this.#next <= last) {
      if (this.aborted) return;
      if (this.paused) {
        this.#blocked = true;
        return;
      }
      const i = this.#next;
      const delayMs = i === 0 ? (r.delay_ms ?? 0) : i <= (chunks?.length ?? 0) ? chunks![i - 1]!.delayMs : 0;
      if (!this.#waited && delayMs > 0 && this.#speed > 0) {
        this.#waited = true;
        this.#timer = setTimeout(() => this.#run(), delayMs / this.#speed);
        return;
      }
      this.#waited = false;
      this.#next++;
      if (!chunks) h.onResponseError?.(this, transportError(r));
      else if (i === 0) h.onResponseStart?.(this, r.status!, { ...this.#bytes!.headers }, '');
      else if (i < last) h.onResponseData?.(this, chunks[i - 1]!.data);
      else if (r.complete === false) h.onResponseError?.(this, transportError(r));
      else h.onResponseEnd?.(this, {});
    }
  }
}

/** The error a recorded failure is replayed as: what undici would have raised, so gw maps it the same way. */
function transportError(r: RecordedResponse): Error {
  const message = `${r.error?.message ?? 'the connection closed before the answer ended'} (replayed)`;
  switch (r.error?.kind) {
    case 'timeout':
      return r.status === undefined ? new errors.HeadersTimeoutError(message) : new errors.BodyTimeoutError(message);
    case 'connect':
      return Object.assign(new Error(message), { code: 'ECONNREFUSED' });
    default:
      return new errors.SocketError(message);
  }
}
