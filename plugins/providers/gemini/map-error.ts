/**
 * Reading Google error bodies for the upstream client: `{"error": {code, message, status,
 * details}}` (some front ends wrap it in a one-element array). Google's `status` becomes
 * `error.code`, and `RetryInfo.retryDelay` a `retry-after` in whole seconds.
 *
 * @see https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes
 * @see https://cloud.google.com/apis/design/errors#http_mapping
 */
import type { UpstreamErrorInfo } from '../../../core/http/client.ts';
import type { GoogleErrorBody } from './types.ts';

const RETRY_INFO = 'type.googleapis.com/google.rpc.RetryInfo';

/** A Google error body → what the client puts in the GatewayError. */
export function readGeminiError(_status: number, bodyText: string): UpstreamErrorInfo {
  const body = JSON.parse(bodyText) as Partial<GoogleErrorBody> | null;
  const err = Array.isArray(body) ? (body[0] as Partial<GoogleErrorBody> | undefined)?.error : body?.error;
  if (typeof err !== 'object' || err === null || typeof err.message !== 'string') return {};
  return {
    message: err.message,
    code: typeof err.status === 'string' ? err.status : null,
    retryAfterSeconds: retryAfterSeconds(Array.isArray(err.details) ? err.details : undefined),
  };
}

/** `"34.4s"` → 35. */
function retryAfterSeconds(details: Array<Record<string, unknown>> | undefined): number | undefined {
  const info = details?.find((d) => d['@type'] === RETRY_INFO);
  const m = typeof info?.retryDelay === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(info.retryDelay) : null;
  return m === null ? undefined : Math.ceil(Number(m[1]));
}
