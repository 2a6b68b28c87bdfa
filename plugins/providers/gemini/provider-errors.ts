/**
 * Gemini failures as the client sees them, named after the provider that failed (as the
 * common-format providers do), on top of the pure `mapUpstreamError`.
 */
import { GatewayError } from '../../../core/errors.ts';
import { snippet } from '../../../core/http/upstream.ts';
import { mapUpstreamError } from './map-error.ts';

/**
 * An upstream error response → GatewayError: 4xx kept (429 with `retry-after` from
 * Google's RetryInfo, else from the response header a proxy in front may send), 5xx → 502
 * with the upstream status and message kept.
 */
export function httpError(provider: string, status: number, text: string, retryAfterHeader: string | undefined): GatewayError {
  const e = mapUpstreamError(status, text);
  const headers = e.headers ?? (status === 429 && retryAfterHeader ? { 'retry-after': retryAfterHeader } : undefined);
  const message = e.status === 502 ? `provider ${provider} failed with HTTP ${status}: ${e.message}` : `provider ${provider}: ${e.message}`;
  return new GatewayError(e.status, message, { code: e.code ?? (e.status === 502 ? 'upstream_error' : null), headers, upstreamStatus: status, provider });
}

/** A 200 whose body gw cannot use. */
export function malformed(provider: string, what: string, text?: string): GatewayError {
  return new GatewayError(502, `provider ${provider} sent ${what}${text === undefined ? '' : `: ${snippet(text)}`}`, { code: 'upstream_malformed', provider });
}

/**
 * A failure raised while translating a stream (the mapper knows no provider): 502 named
 * after the provider; `code` defaults to `fallbackCode`. Anything else is returned as is.
 */
export function streamError(provider: string, err: unknown, fallbackCode: string): unknown {
  if (!(err instanceof GatewayError) || err.provider !== undefined) return err;
  return new GatewayError(err.status, `provider ${provider} failed mid-stream: ${err.message}`, {
    code: err.code ?? fallbackCode,
    upstreamStatus: err.upstreamStatus,
    headers: err.headers,
    provider,
    cause: err,
  });
}
