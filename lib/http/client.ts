/**
 * One upstream HTTP client per provider (the AI SDK's provider-utils idea): send, read JSON or
 * SSE, map an error answer, follow discovery pages; a kind gives only `readError`. Mapping
 * (docs/design.md "Errors"): a 4xx passes on, but 401/403 (gw's own key) become 502
 * `upstream_auth_failed`; a 5xx becomes 502 `upstream_error`; transport failures 504/502.
 */
import type { Dispatcher } from 'undici';
import type { Logger } from 'pino';
import { DISCOVERY_FAILED, UPSTREAM_ERROR, UPSTREAM_MALFORMED, UPSTREAM_TIMEOUT } from './errors.ts';
import type { ConnectionLimit, QueueObserver } from './limit.ts';
import { defineError, type GatewayError } from '../../core/errors.ts';
import { upstreamError } from './errors.ts';
import type { SseEvent } from '../provider.ts';
import { sseEvents } from './sse-parse.ts';
import { redactUrl } from '../redact.ts';
import { callUpstream, parseUpstreamJson, readBody, releaseBody, snippet, type UpstreamResponse } from './upstream.ts';
import { nextTurn } from '../turns.ts';
import { attemptHeaders } from './attempt-headers.ts';
import { type ExchangeObserver, observedDispatcher, type UpstreamIdentity } from './exchange.ts';

/** The upstream rejected gw's own credentials for the provider (its 401/403). */
export const UPSTREAM_AUTH_FAILED = defineError<{ provider: string; status: number; message: string }>(
  'upstream_auth_failed',
  502,
  (p) => `provider ${p.provider} rejected gw's credentials (HTTP ${p.status}): ${p.message}; check the provider's api_key`,
  // a 502 that repeating cannot cure: the operator must fix the provider's key
  { upstream: true, retry: false, verbatim: ['message'] },
);

/** What a kind reads out of one of its error bodies. */
export interface UpstreamErrorInfo {
  message?: string;
  /** The vendor's error code or type, passed on as `error.code`. */
  code?: string | null;
  param?: string | null;
  /** A retry delay found in the body (e.g. Google's RetryInfo), seconds. */
  retryAfterSeconds?: number;
}

/** Settings of a provider's client. */
export interface ClientSettings {
  /** Provider name, for errors and logs. */
  provider: string;
  /** The gateway's connection pool. */
  dispatcher: Dispatcher;
  log: Logger;
  /** Time to response headers and longest gap between body chunks, ms. */
  timeoutMs: number;
  /** Reads the kind's error body; default: OpenAI's `{error: {message, code, param}}`. */
  readError?: (status: number, text: string) => UpstreamErrorInfo;
  /** Largest SSE event or JSON body read from the upstream, bytes (default 32 MiB). */
  maxEventBytes?: number;
  /** The provider's cap on concurrent upstream requests (`max_connections`), if it has one. */
  limit?: ConnectionLimit;
  /** Hears how long requests waited for a slot of `limit` (metrics). */
  observer?: QueueObserver;
  /** Told about every exchange (exchange.ts), as the provider `upstream`; the list is read at each request. */
  exchanges?: { observers: readonly ExchangeObserver[]; upstream: UpstreamIdentity };
}

/** Options of one call. */
export interface CallOptions {
  method?: 'GET' | 'POST';
  headers: Record<string, string>;
  /** A JSON body: a string is sent as is, anything else is serialized. */
  body?: unknown;
  signal?: AbortSignal;
  /** Overrides the provider's timeout (discovery uses a shorter one). */
  timeoutMs?: number;
  log?: Logger;
  /** A large request (CallContext.large): an object body is serialized in a turn of the event loop of its own. */
  large?: boolean;
}

/** A provider's upstream client (see the file comment). */
export interface UpstreamClient {
  readonly provider: string;
  readonly timeoutMs: number;
  /** Sends a request; resolves once headers arrive, whatever the status. */
  call(url: string, o: CallOptions): Promise<UpstreamResponse>;
  /** Sends a request; an error status is thrown as its GatewayError (see `fail`). */
  send(url: string, o: CallOptions): Promise<UpstreamResponse>;
  /** Reads an error answer and throws it as the GatewayError the rules above give. */
  fail(res: UpstreamResponse, url: string, signal?: AbortSignal): Promise<never>;
  /** The GatewayError for an error status and body (no I/O). */
  errorFor(status: number, text: string, retryAfter?: string): GatewayError;
  /** The whole (small) body as text. */
  text(res: UpstreamResponse, url: string, signal?: AbortSignal): Promise<string>;
  /** The whole body parsed as JSON; 502 `upstream_malformed` when it is not. */
  json<T>(res: UpstreamResponse, url: string, signal?: AbortSignal): Promise<T>;
  /** A stream answer's SSE events (502 when not `text/event-stream`); after a `complete` event the body is drained for reuse. */
  events(res: UpstreamResponse, url: string, signal: AbortSignal, complete?: (ev: SseEvent) => boolean): Promise<AsyncGenerator<SseEvent>>;
  /** Follows a paged list for at most `maxPages` or until a next URL repeats. @throws DISCOVERY_FAILED naming the page's URL and status. */
  pages<T>(
    first: string,
    headers: Record<string, string>,
    read: (body: unknown) => { items: T[]; next?: string } | undefined,
    opts?: { signal?: AbortSignal; maxPages?: number },
  ): Promise<T[]>;
}

/** Discovery must not hold a start for the whole chat timeout. */
const DISCOVERY_TIMEOUT_MS = 15_000;
/** Default bound on one upstream event or body: gw's own request limit. */
export const DEFAULT_MAX_EVENT_BYTES = 33_554_432;

/** Creates a provider's client. */
export function createUpstreamClient(s: ClientSettings): UpstreamClient {
  const readError = s.readError ?? readOpenAIError;
  const name = s.provider;
  const maxBytes = s.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
  const dispatcher = s.exchanges ? observedDispatcher(s.dispatcher, s.exchanges.observers, s.exchanges.upstream) : s.dispatcher;

  function errorFor(status: number, text: string, retryAfter?: string): GatewayError {
    const info = safeRead(readError, status, text);
    const message = info.message ?? `HTTP ${status}${text.trim() ? `: ${snippet(text)}` : ' with an empty body'}`;
    if (status === 401 || status === 403) return UPSTREAM_AUTH_FAILED({ provider: name, status, message }, { upstreamStatus: status, provider: name });
    const ra = info.retryAfterSeconds !== undefined ? String(info.retryAfterSeconds) : retryAfter;
    if (status >= 400 && status < 500) {
      return upstreamError(status, `provider ${name}: ${message}`, {
        code: info.code ?? null,
        param: info.param ?? null,
        provider: name,
        headers: ra && (status === 429 || status === 408) ? { 'retry-after': ra } : undefined,
      });
    }
    const e = UPSTREAM_ERROR(`provider ${name} failed with HTTP ${status}: ${message}`, {
      upstreamStatus: status,
      provider: name,
      headers: ra ? { 'retry-after': ra } : undefined,
    });
    // gw's code stays the catalog's (one failure, one code on every kind); the upstream's is kept beside it
    if (info.code) e.upstreamCode = info.code;
    return e;
  }

  const client: UpstreamClient = {
    provider: name,
    timeoutMs: s.timeoutMs,
    async call(url, o) {
      const timeoutMs = o.timeoutMs ?? s.timeoutMs;
      const log = o.log ?? s.log;
      const limit = s.limit;
      let waited = 0;
      if (limit) {
        // time queued counts toward the timeout: the client waits the same either way
        waited = await limit.acquire(timeoutMs, o.signal, () =>
          UPSTREAM_TIMEOUT(
            { provider: name, seconds: timeoutMs / 1000, url: `${redactUrl(url)}, queued behind max_connections = ${limit.max}` },
            { provider: name },
          ),
        );
        if (waited > 0) {
          s.observer?.waited(name, waited);
          if (log.isLevelEnabled('debug'))
            log.debug(
              { provider: name, waited_ms: Math.round(waited), max_connections: limit.max, queued: limit.depth },
              'waited for an upstream connection slot',
            );
        }
      }
      let res: UpstreamResponse;
      try {
        let body: string | undefined;
        if (o.body === undefined || typeof o.body === 'string') body = o.body as string | undefined;
        else {
          // a large translated body: serializing it is a task of its own, after the
          // translation's (lib/turns.ts); a small one pays no turn
          if (o.large) await nextTurn();
          body = JSON.stringify(o.body);
        }
        // the attempt's own headers (a child traceparent): the provider's win on a clash
        const extra = attemptHeaders();
        res = await callUpstream(url, {
          method: o.method,
          headers: extra === undefined ? o.headers : { ...extra, ...o.headers },
          body,
          signal: o.signal,
          timeoutMs: Math.max(1, timeoutMs - waited),
          provider: name,
          log,
          dispatcher,
        });
      } catch (err) {
        limit?.release();
        throw err;
      }
      // the connection is busy until the body is read or dropped
      if (limit) res.body.once('close', () => limit.release());
      return res;
    },
    async send(url, o) {
      const res = await client.call(url, o);
      if (res.statusCode >= 400) return client.fail(res, url, o.signal);
      return res;
    },
    async fail(res, url, signal) {
      const text = await readBody(res, name, url, s.timeoutMs, signal, 65_536).catch(() => '');
      const ra = res.headers['retry-after'];
      throw errorFor(res.statusCode, text, Array.isArray(ra) ? ra[0] : ra);
    },
    errorFor,
    text(res, url, signal) {
      return readBody(res, name, url, s.timeoutMs, signal, maxBytes);
    },
    async json<T>(res: UpstreamResponse, url: string, signal?: AbortSignal): Promise<T> {
      return parseUpstreamJson<T>(await readBody(res, name, url, s.timeoutMs, signal, maxBytes), name);
    },
    async events(res, url, signal, complete) {
      const ct = String(res.headers['content-type'] ?? '');
      if (!ct.includes('text/event-stream')) {
        const text = await readBody(res, name, url, s.timeoutMs, signal, 65_536).catch(() => '');
        throw UPSTREAM_MALFORMED({ provider: name, what: `${ct || 'no content type'} to a stream request: ${snippet(text)}` }, { provider: name });
      }
      return streamEvents(res, url, signal, complete);
    },
    async pages(first, headers, read, opts = {}) {
      const out = [];
      let url: string | undefined = first;
      const seen = new Set<string>();
      for (let page = 0; url !== undefined && page < (opts.maxPages ?? 50) && !seen.has(url); page++) {
        seen.add(url);
        const res = await client.call(url, { method: 'GET', headers, signal: opts.signal, timeoutMs: Math.min(s.timeoutMs, DISCOVERY_TIMEOUT_MS) });
        const text = await readBody(res, name, url, s.timeoutMs, opts.signal, maxBytes);
        if (res.statusCode >= 400)
          throw DISCOVERY_FAILED(`GET ${redactUrl(url)} answered HTTP ${res.statusCode}: ${snippet(text)}`, { upstreamStatus: res.statusCode, provider: name });
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          throw DISCOVERY_FAILED(`GET ${redactUrl(url)} returned a malformed JSON body: ${snippet(text)}`, { provider: name });
        }
        const r = read(body);
        if (!r) throw DISCOVERY_FAILED(`GET ${redactUrl(url)} returned no model list`, { provider: name });
        for (const item of r.items) out.push(item);
        url = r.next;
      }
      return out;
    },
  };

  async function* streamEvents(res: UpstreamResponse, url: string, signal: AbortSignal, complete?: (ev: SseEvent) => boolean): AsyncGenerator<SseEvent> {
    let done = false;
    try {
      for await (const ev of sseEvents(res.body, name, url, s.timeoutMs, signal, maxBytes)) {
        if (complete?.(ev)) done = true;
        yield ev;
      }
    } finally {
      // a stream we stop reading early (client gone, error) must not stall the pool; one
      // that said it is complete is drained so its connection is reused
      releaseBody(res, done);
    }
  }

  return client;
}

/** OpenAI's error body: `{"error": {"message", "type", "param", "code"}}` (or `{"error": "text"}`, `{"message"}`). */
export function readOpenAIError(_status: number, text: string): UpstreamErrorInfo {
  const body = JSON.parse(text) as { error?: { message?: string; code?: unknown; param?: unknown; type?: string } | string; message?: string };
  if (typeof body.error === 'string') return { message: body.error };
  if (body.error && typeof body.error === 'object') {
    return {
      message: body.error.message,
      code: body.error.code == null ? null : String(body.error.code),
      param: typeof body.error.param === 'string' ? body.error.param : null,
    };
  }
  return typeof body.message === 'string' ? { message: body.message } : {};
}

function safeRead(read: (status: number, text: string) => UpstreamErrorInfo, status: number, text: string): UpstreamErrorInfo {
  try {
    return read(status, text) ?? {};
  } catch {
    // not the documented shape: the message quotes the body
    return {};
  }
}
