/**
 * Upstream errors in the OpenAI error shape → GatewayError (DESIGN.md "Errors"): a 4xx
 * keeps its status and message (429 included, with its retry-after); a 5xx becomes 502
 * with the upstream status and message kept in the body.
 * @see https://platform.openai.com/docs/guides/error-codes
 */
import { GatewayError } from '../../../core/errors.ts';
import { snippet } from '../../../core/http/upstream.ts';

/** Builds the GatewayError for an upstream error response of any OpenAI-compatible vendor. */
export function mapCompatibleError(provider: string, status: number, text: string, retryAfter?: string): GatewayError {
  let message: string | undefined;
  let code: string | null = null;
  let param: string | null = null;
  try {
    const body = JSON.parse(text) as { error?: { message?: string; code?: unknown; param?: unknown; type?: string } | string; message?: string };
    if (typeof body.error === 'string') message = body.error;
    else if (body.error) {
      message = body.error.message;
      code = body.error.code == null ? null : String(body.error.code);
      param = typeof body.error.param === 'string' ? body.error.param : null;
    } else if (typeof body.message === 'string') message = body.message;
  } catch {
    // not JSON: keep a snippet of the text
  }
  message ??= snippet(text);
  if (status >= 400 && status < 500) {
    const headers = status === 429 && retryAfter ? { 'retry-after': retryAfter } : undefined;
    return new GatewayError(status, `provider ${provider}: ${message}`, { code, param, upstreamStatus: status, provider, headers });
  }
  return new GatewayError(502, `provider ${provider} failed with HTTP ${status}: ${message}`, { code: code ?? 'upstream_error', upstreamStatus: status, provider });
}
