/**
 * What every Messages call carries: the origin as gw addresses it, and the headers (the
 * client's `anthropic-version`, else the default; natively `anthropic-beta` too).
 * @see Anthropic API: Messages, Versions
 */
import type { CallContext } from '../../lib/provider.ts';

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
