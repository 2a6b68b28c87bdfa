/**
 * Google error responses → GatewayError.
 *
 * @see https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes
 * @see https://cloud.google.com/apis/design/errors#http_mapping
 */
import { GatewayError } from '../../../core/errors.ts';
import type { GoogleErrorBody } from './types.ts';

const RETRY_INFO = 'type.googleapis.com/google.rpc.RetryInfo';

/**
 * `{error: {code, message, status}}` → GatewayError. A 4xx keeps its status and message
 * (429 stays 429, the client's retry logic depends on it), with Google's `status` as
 * `code`; a 5xx (or any other non-4xx) becomes 502 with the upstream status and message
 * kept. `RetryInfo.retryDelay` becomes `retry-after` in whole seconds. A body that is not
 * Google's shape is quoted (first 200 characters).
 */
export function mapUpstreamError(status: number, bodyText: string): GatewayError {
  const err = parseGoogleError(bodyText);
  const message = err?.message ?? `upstream returned ${status}${bodyText.trim() === '' ? '' : `: ${bodyText.trim().slice(0, 200)}`}`;
  const code = err?.status ?? null;
  const retryAfter = retryAfterSeconds(err?.details);
  const headers = retryAfter !== undefined ? { 'retry-after': String(retryAfter) } : undefined;
  if (status >= 400 && status < 500) return new GatewayError(status, message, { code, headers, upstreamStatus: status });
  return new GatewayError(502, message, { code, headers, upstreamStatus: status });
}

function parseGoogleError(bodyText: string): { message?: string; status?: string; details?: Array<Record<string, unknown>> } | undefined {
  try {
    const body = JSON.parse(bodyText) as Partial<GoogleErrorBody> | null;
    // some Google front ends answer with a one-element array of the error object
    const err = (Array.isArray(body) ? (body[0] as Partial<GoogleErrorBody> | undefined)?.error : body?.error);
    if (typeof err !== 'object' || err === null || typeof err.message !== 'string') return undefined;
    return { message: err.message, status: typeof err.status === 'string' ? err.status : undefined, details: Array.isArray(err.details) ? err.details : undefined };
  } catch {
    return undefined;
  }
}

/** `"34.4s"` → 35. */
function retryAfterSeconds(details: Array<Record<string, unknown>> | undefined): number | undefined {
  const info = details?.find((d) => d['@type'] === RETRY_INFO);
  const m = typeof info?.retryDelay === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(info.retryDelay) : null;
  return m === null ? undefined : Math.ceil(Number(m[1]));
}
