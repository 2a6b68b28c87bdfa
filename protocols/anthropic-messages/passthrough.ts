/**
 * Native Messages passthrough to a Messages-format origin (Anthropic itself, and the
 * Anthropic-compatible origins of dashscope and zhipu): the provider method a kind puts at
 * `native['anthropic-messages']`. The client's body bytes, query string (`?beta=true`)
 * and `anthropic-version`/`anthropic-beta` headers go upstream unchanged; the answer comes
 * back as bytes or as SSE events, never re-encoded.
 * @see https://docs.anthropic.com/en/api/messages
 * @see https://docs.anthropic.com/en/api/versioning
 */
import type { CallContext, NativeCall, UpstreamClient } from 'gw/plugin';

/** The version every Messages call carries when the client sent none. */
export const DEFAULT_ANTHROPIC_VERSION = '2023-06-01';

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
  const h: Record<string, string> = {
    ...auth,
    'content-type': 'application/json',
    'anthropic-version': header(client, 'anthropic-version') ?? DEFAULT_ANTHROPIC_VERSION,
  };
  if (forwardBeta) {
    const beta = header(client, 'anthropic-beta');
    if (beta) h['anthropic-beta'] = beta;
  }
  if (stream) h.accept = 'text/event-stream';
  return h;
}

/**
 * The native Messages call of a provider whose Messages origin is `origin` (without `/v1`),
 * reached with `http` (whose `readError` should be `readMessagesError`) and `auth` headers.
 * Operations: `messages` (POST /v1/messages) and `count_tokens` (POST /v1/messages/count_tokens).
 */
export function messagesPassthrough(http: UpstreamClient, origin: string, auth: Record<string, string>): NativeCall {
  const base = messagesOrigin(origin);
  return async function messages(body, call, op = 'messages') {
    const stream = op === 'messages' && body.stream === true;
    const endpoint = op === 'count_tokens' ? `${base}/v1/messages/count_tokens` : `${base}/v1/messages`;
    const url = call.query ? `${endpoint}?${call.query}` : endpoint;
    const res = await http.send(url, {
      headers: messagesHeaders(auth, call.headers, stream, true),
      body: call.rawBody ?? body,
      signal: call.signal,
      log: call.log,
    });
    if (stream) return { type: 'stream', events: await http.events(res, url, call.signal, (ev) => ev.event === 'message_stop') };
    const raw = await http.text(res, url, call.signal);
    return { type: 'json', status: res.statusCode, raw, contentType: String(res.headers['content-type'] ?? 'application/json') };
  };
}
