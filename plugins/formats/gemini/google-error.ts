/**
 * GatewayError → Google's error body, for every Gemini route.
 *
 * @see https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes
 * @see https://cloud.google.com/apis/design/errors#http_mapping
 * @see https://github.com/googleapis/googleapis/blob/master/google/rpc/code.proto
 */
import type { GatewayError } from '../../../core/errors.ts';

/** HTTP status → google.rpc.Code name, per Google's HTTP mapping. */
const STATUS_NAMES: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 404: 'NOT_FOUND',
  409: 'ABORTED', 412: 'FAILED_PRECONDITION', 413: 'INVALID_ARGUMENT', 415: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED', 499: 'CANCELLED', 500: 'INTERNAL', 501: 'UNIMPLEMENTED',
  502: 'UNAVAILABLE', 503: 'UNAVAILABLE', 504: 'DEADLINE_EXCEEDED',
};

/** The google.rpc.Code name for an HTTP status: the table above, else INVALID_ARGUMENT for 4xx and INTERNAL for the rest. */
export function googleStatusName(status: number): string {
  return STATUS_NAMES[status] ?? (status >= 400 && status < 500 ? 'INVALID_ARGUMENT' : 'INTERNAL');
}

/** `google.rpc.Status` as JSON, with the details gw can fill. */
export interface GoogleError {
  error: { code: number; message: string; status: string; details?: Array<Record<string, unknown>> };
}

/**
 * `{"error": {code, message, status, details?}}`: `code` is the HTTP status gw answers with,
 * `status` its google.rpc name. Details, in Google's types, only when there is something to say:
 * `ErrorInfo` (reason = gw's error code such as `model_not_allowed`, domain `gw`, metadata.param
 * = the offending field) and `RetryInfo` (`retryDelay: "<n>s"` from `retry-after`, which Google
 * clients, Gemini CLI among them, read to pace their retries).
 */
export function toGoogleError(err: GatewayError): GoogleError {
  const details: Array<Record<string, unknown>> = [];
  if (err.code !== null || err.param !== null) {
    const info: Record<string, unknown> = { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: err.code ?? err.type, domain: 'gw' };
    if (err.param !== null) info.metadata = { param: err.param };
    details.push(info);
  }
  const retryAfter = err.headers?.['retry-after'];
  if (retryAfter !== undefined && /^\d+$/.test(retryAfter)) {
    details.push({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${retryAfter}s` });
  }
  const body: GoogleError = { error: { code: err.status, message: err.message, status: googleStatusName(err.status) } };
  if (details.length > 0) body.error.details = details;
  return body;
}
