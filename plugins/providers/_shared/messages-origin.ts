/**
 * Native Messages passthrough to a Messages-format origin (Anthropic itself, and the
 * Anthropic-compatible origins of dashscope and zhipu): the client's body bytes, query
 * string (`?beta=true`) and `anthropic-version`/`anthropic-beta` headers go upstream
 * unchanged; the answer comes back as bytes or as SSE events, never re-encoded.
 * @see https://docs.anthropic.com/en/api/messages
 * @see https://docs.anthropic.com/en/api/versioning
 */
import { GatewayError } from '../../../core/errors.ts';
import { sseEvents } from '../../../core/http/sse-parse.ts';
import { callUpstream, readBody, releaseBody, type UpstreamResponse } from '../../../core/http/upstream.ts';
import type { CallContext, MessagesResult, SseEvent } from '../../../core/provider.ts';
import { mapUpstreamError } from '../anthropic/map-error.ts';

/** The version every Messages call carries when the client sent none. */
export const DEFAULT_ANTHROPIC_VERSION = '2023-06-01';

/** Settings of one Messages origin. */
export interface MessagesOriginSettings {
  /** Provider name, for errors and logs. */
  name: string;
  /** Origin without `/v1`, e.g. `https://api.anthropic.com`. */
  origin: string;
  /** Auth headers of the kind (`x-api-key` or `authorization`). */
  auth: Record<string, string>;
  /** Time to headers and longest gap between stream events, ms. */
  timeoutMs: number;
}

/** Origin without a trailing slash or a trailing `/v1` (users often paste the versioned URL). */
export function messagesOrigin(url: string): string {
  return url.replace(/\/+$/, '').replace(/\/v1$/, '');
}

/** First value of a request header. */
function header(headers: CallContext['headers'], name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Headers of a Messages call: the kind's auth, JSON, and the client's `anthropic-version`
 * (else {@link DEFAULT_ANTHROPIC_VERSION}) and `anthropic-beta` when given.
 */
export function messagesHeaders(auth: Record<string, string>, client: CallContext['headers'], stream: boolean, forwardBeta: boolean): Record<string, string> {
  const h: Record<string, string> = { ...auth, 'content-type': 'application/json', 'anthropic-version': header(client, 'anthropic-version') ?? DEFAULT_ANTHROPIC_VERSION };
  if (forwardBeta) {
    const beta = header(client, 'anthropic-beta');
    if (beta) h['anthropic-beta'] = beta;
  }
  if (stream) h.accept = 'text/event-stream';
  return h;
}

/**
 * A Messages error response → GatewayError (4xx kept, 5xx and 529 → 502 with
 * `upstreamStatus`), with the provider named and, for 5xx, the upstream status in the
 * message so it survives in the Messages error shape (which has no status field).
 */
export function messagesUpstreamError(name: string, status: number, text: string, retryAfter: string | undefined): GatewayError {
  const err = mapUpstreamError(status, text, retryAfter === undefined ? {} : { retryAfter });
  err.provider = name;
  err.message = status >= 500 ? `provider ${name} failed with HTTP ${status}: ${err.message}` : `provider ${name}: ${err.message}`;
  return err;
}

/** Reads an error response and throws it as a GatewayError. */
export async function failMessages(name: string, res: UpstreamResponse, url: string, timeoutMs: number, signal: AbortSignal | undefined): Promise<never> {
  const text = await readBody(res, name, url, timeoutMs, signal).catch(() => '');
  const ra = res.headers['retry-after'];
  throw messagesUpstreamError(name, res.statusCode, text, Array.isArray(ra) ? ra[0] : ra);
}

/** The `messages()` method of a Provider for one Messages origin. */
export function createMessagesPassthrough(s: MessagesOriginSettings): (body: Record<string, unknown>, call: CallContext) => Promise<MessagesResult> {
  const endpoint = `${messagesOrigin(s.origin)}/v1/messages`;
  return async function messages(body, call) {
    const stream = body.stream === true;
    const url = call.query ? `${endpoint}?${call.query}` : endpoint;
    const res = await callUpstream(url, {
      headers: messagesHeaders(s.auth, call.headers, stream, true),
      body: call.rawBody ?? JSON.stringify(body),
      signal: call.signal,
      timeoutMs: s.timeoutMs,
      provider: s.name,
      log: call.log,
    });
    if (res.statusCode >= 400) return failMessages(s.name, res, url, s.timeoutMs, call.signal);
    const contentType = String(res.headers['content-type'] ?? 'application/json');
    if (contentType.includes('text/event-stream')) return { type: 'stream', events: events(res, s, url, call.signal) };
    if (stream) {
      const text = await readBody(res, s.name, url, s.timeoutMs, call.signal).catch(() => '');
      throw new GatewayError(502, `provider ${s.name} answered a stream request with ${contentType}: ${text.slice(0, 200)}`, { code: 'upstream_malformed', provider: s.name });
    }
    const raw = await readBody(res, s.name, url, s.timeoutMs, call.signal);
    return { type: 'json', status: res.statusCode, raw, contentType };
  };
}

/** The upstream's events as they arrive; the body is destroyed if the reader stops early. */
async function* events(res: UpstreamResponse, s: MessagesOriginSettings, url: string, signal: AbortSignal): AsyncGenerator<SseEvent> {
  let last: string | undefined;
  try {
    for await (const ev of sseEvents(res.body, s.name, url, s.timeoutMs, signal)) {
      last = ev.event;
      yield ev;
    }
  } finally {
    // stopped after message_stop: drained so the connection is reused; otherwise destroyed
    releaseBody(res, last === 'message_stop');
  }
}
