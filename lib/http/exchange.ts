/**
 * Observing upstream HTTP exchanges (`upstream.observe`; the recorder writes them to a
 * cassette): an undici dispatcher around the gateway's pool, so every kind and route is seen
 * below any translation; with no observer it costs one length check per request.
 */
import { Dispatcher } from 'undici';
import { type AttemptScope, currentAttempt } from './attempt-headers.ts';

/** The provider an upstream client belongs to, as an observer sees it. */
export interface UpstreamIdentity {
  /** The provider's name (its section). */
  readonly provider: string;
  /** Its kind (the section's `kind`, else its name). */
  readonly kind: string;
  /** The settings of its section that shape its requests, secrets and origins left out (`upstreamSettings`). */
  readonly settings: Readonly<Record<string, string | number | boolean>>;
}

/** One upstream request as it is sent. */
export interface ExchangeStart {
  readonly upstream: UpstreamIdentity;
  readonly method: string;
  /** Path and query string as sent (no origin). */
  readonly path: string;
  /** Request headers as sent, lower-case names, **credentials included**: keep them by an allow-list. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body as sent when it is text or bytes (UTF-8); undefined for none or a stream. */
  readonly body: string | undefined;
  /** The attempt it belongs to, when the kernel scopes attempts (a tracing hook is tapped). */
  readonly attempt: AttemptScope | undefined;
  /** `performance.now()` when it was sent. */
  readonly startedAt: number;
}

/** One exchange as an observer hears it: `response`, `data`*, `end`, or `error` at any point; synchronous, a throwing sink is dropped. */
export interface ExchangeSink {
  response(status: number, headers: Readonly<Record<string, string | string[] | undefined>>): void;
  data(chunk: Buffer): void;
  end(): void;
  /** The exchange failed: before an answer (connect, timeout) or after (connection lost, aborted). */
  error(err: Error): void;
}

/** Called as an exchange starts; returns a sink to hear the rest of it, or undefined to ignore it. */
export type ExchangeObserver = (exchange: ExchangeStart) => ExchangeSink | undefined;

/** A Dispatcher that owns no connection: closing it releases nothing. Subclasses give `dispatch`. */
export abstract class NonOwningDispatcher extends Dispatcher {
  override close(): Promise<void>;
  override close(callback: () => void): void;
  override close(callback?: () => void): Promise<void> | void {
    if (callback) queueMicrotask(callback);
    else return Promise.resolve();
  }

  override destroy(): Promise<void>;
  override destroy(err: Error | null): Promise<void>;
  override destroy(callback: () => void): void;
  override destroy(err: Error | null, callback: () => void): void;
  override destroy(a?: unknown, b?: unknown): Promise<void> | void {
    const callback = typeof a === 'function' ? a : b;
    if (typeof callback === 'function') queueMicrotask(callback as () => void);
    else return Promise.resolve();
  }
}

/** Tells `observers` (read per request) about every exchange through `pool` for `upstream`; closing it leaves the pool open. */
export function observedDispatcher(pool: Dispatcher, observers: readonly ExchangeObserver[], upstream: UpstreamIdentity): Dispatcher {
  return new ObservedDispatcher(pool, observers, upstream);
}

class ObservedDispatcher extends NonOwningDispatcher {
  readonly #pool: Dispatcher;
  readonly #observers: readonly ExchangeObserver[];
  readonly #upstream: UpstreamIdentity;

  constructor(pool: Dispatcher, observers: readonly ExchangeObserver[], upstream: UpstreamIdentity) {
    super();
    this.#pool = pool;
    this.#observers = observers;
    this.#upstream = upstream;
  }

  override dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    if (this.#observers.length === 0) return this.#pool.dispatch(opts, handler);
    const start: ExchangeStart = {
      upstream: this.#upstream,
      method: opts.method,
      path: opts.path,
      headers: headerRecord(opts.headers),
      body: bodyText(opts.body),
      attempt: currentAttempt(),
      startedAt: performance.now(),
    };
    const sinks: ExchangeSink[] = [];
    for (const observe of this.#observers) {
      try {
        const sink = observe(start);
        if (sink) sinks.push(sink);
      } catch {
        // an observer that fails must not fail the request: it hears nothing of this one
      }
    }
    return this.#pool.dispatch(opts, sinks.length === 0 ? handler : new TeeHandler(handler, sinks));
  }
}

/** Passes every event on to the request's own handler, and the response's to the sinks. */
class TeeHandler implements Dispatcher.DispatchHandler {
  readonly #handler: Dispatcher.DispatchHandler;
  #sinks: ExchangeSink[];

  constructor(handler: Dispatcher.DispatchHandler, sinks: ExchangeSink[]) {
    this.#handler = handler;
    this.#sinks = sinks;
  }

  #tell(fn: (sink: ExchangeSink) => void): void {
    for (const sink of this.#sinks) {
      try {
        fn(sink);
      } catch {
        this.#sinks = this.#sinks.filter((s) => s !== sink);
      }
    }
  }

  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    this.#handler.onRequestStart?.(controller, context);
  }
  onRequestUpgrade(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
    socket: import('node:stream').Duplex,
  ): void {
    this.#handler.onRequestUpgrade?.(controller, statusCode, headers, socket);
  }
  onResponseStarted(): void {
    this.#handler.onResponseStarted?.();
  }
  onBodySent(chunk: Buffer): void {
    this.#handler.onBodySent?.(chunk);
  }
  onRequestSent(): void {
    this.#handler.onRequestSent?.();
  }
  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
    statusMessage?: string,
  ): void {
    // 1xx informational answers come before the final one
    if (statusCode >= 200) this.#tell((s) => s.response(statusCode, headers));
    this.#handler.onResponseStart?.(controller, statusCode, headers, statusMessage);
  }
  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#tell((s) => s.data(chunk));
    this.#handler.onResponseData?.(controller, chunk);
  }
  onResponseEnd(controller: Dispatcher.DispatchController, trailers: Record<string, string | string[] | undefined>): void {
    this.#tell((s) => s.end());
    this.#handler.onResponseEnd?.(controller, trailers);
  }
  onResponseError(controller: Dispatcher.DispatchController, error: Error): void {
    this.#tell((s) => s.error(error));
    this.#handler.onResponseError?.(controller, error);
  }
}

/** Request headers in any form undici takes, as a record with lower-case names. */
export function headerRecord(headers: Dispatcher.DispatchOptions['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  if (headers == null) return out;
  const add = (name: string, value: unknown) => {
    if (value === undefined) return;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
  };
  if (Array.isArray(headers)) {
    // the flat form: name, value, name, value…
    for (let i = 0; i + 1 < headers.length; i += 2) add(String(headers[i]), headers[i + 1]);
  } else if (typeof (headers as Iterable<unknown>)[Symbol.iterator] === 'function') {
    for (const [name, value] of headers as Iterable<[string, unknown]>) add(name, value);
  } else {
    for (const [name, value] of Object.entries(headers)) add(name, value);
  }
  return out;
}

/** A dispatch body as text when it is text or bytes. */
export function bodyText(body: Dispatcher.DispatchOptions['body']): string | undefined {
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  return undefined;
}

/** Setting names that may hold a secret or an account's identity: never shown to observers. */
const PRIVATE_SETTING = /key|secret|token|password|auth|cookie|credential|organi[sz]ation|project|account|header/i;
/** Where a URL setting's origin was: a host that resolves nowhere (RFC 2606). */
export const HIDDEN_ORIGIN = 'https://upstream.invalid';

/** A provider section's plain settings for observers: no secret or account fields, URLs' origins hidden ({@link HIDDEN_ORIGIN}). */
export function upstreamSettings(section: Readonly<Record<string, unknown>>): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [name, value] of Object.entries(section)) {
    if (PRIVATE_SETTING.test(name) || name === 'models') continue;
    if (typeof value === 'number' || typeof value === 'boolean') out[name] = value;
    else if (typeof value === 'string') out[name] = /^https?:\/\//i.test(value) ? hideOrigin(value) : value;
  }
  return out;
}

function hideOrigin(url: string): string {
  try {
    const path = new URL(url).pathname;
    return `${HIDDEN_ORIGIN}${path === '/' ? '' : path}`;
  } catch {
    return HIDDEN_ORIGIN;
  }
}
