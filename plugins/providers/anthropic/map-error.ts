/**
 * Non-2xx Messages responses → GatewayError.
 *
 * @see https://docs.anthropic.com/en/api/errors
 */
import { GatewayError } from '../../../core/errors.ts';

const SNIPPET_CHARS = 200;

/**
 * Map an upstream error response (`{"type":"error","error":{"type","message"}}`).
 * 4xx keep their status and message (429 included, with `retry-after` when given);
 * 5xx and Anthropic's 529 `overloaded_error` become 502 with `upstreamStatus` and the
 * upstream message kept. `code` is Anthropic's error type. A body that is not the
 * documented shape yields a message with the status and a truncated snippet of the body.
 * @see https://docs.anthropic.com/en/api/errors
 */
export function mapUpstreamError(status: number, bodyText: string, opts: { retryAfter?: string } = {}): GatewayError {
  const parsed = parseErrorBody(bodyText);
  const message = parsed?.message ?? `anthropic upstream answered HTTP ${status}${bodyText.trim() === '' ? ' with an empty body' : `: ${snippet(bodyText)}`}`;
  const headers = opts.retryAfter !== undefined && status === 429 ? { 'retry-after': opts.retryAfter } : undefined;
  const gatewayStatus = status >= 400 && status < 500 ? status : 502;
  return new GatewayError(gatewayStatus, message, { code: parsed?.type ?? null, upstreamStatus: status, headers });
}

function parseErrorBody(text: string): { type: string | null; message: string } | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  const error = typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined;
  if (typeof error !== 'object' || error === null) return undefined;
  const { type, message } = error as { type?: unknown; message?: unknown };
  if (typeof message !== 'string' || message === '') return undefined;
  return { type: typeof type === 'string' ? type : null, message };
}

function snippet(text: string): string {
  const flat = text.trim().replace(/\s+/g, ' ');
  return flat.length > SNIPPET_CHARS ? `${flat.slice(0, SNIPPET_CHARS)}…` : flat;
}
