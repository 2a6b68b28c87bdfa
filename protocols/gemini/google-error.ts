/**
 * Google's error body both ways: GatewayError → `{"error": {code, message, status}}` for every
 * Gemini route; a Google error body from an upstream (its status, `RetryInfo`) read for the
 * upstream client; and an error payload inside an upstream Gemini stream → GatewayError.
 * Follows Google's "API design guide › Errors › HTTP mapping" and `google/rpc/code.proto`.
 */
import { errors, type GatewayError } from 'gw/plugin';
import { upstreamError } from '../../lib/http/errors.ts';
import type { UpstreamErrorInfo } from '../../lib/http/client.ts';
import type { GoogleErrorBody } from './types.ts';

/** HTTP status → google.rpc.Code name, per Google's HTTP mapping. */
const STATUS_NAMES: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ABORTED',
  412: 'FAILED_PRECONDITION',
  413: 'INVALID_ARGUMENT',
  415: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  501: 'UNIMPLEMENTED',
  502: 'UNAVAILABLE',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
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
 * `{"error": {code, message, status, details?}}`: `code` the HTTP status, `status` its
 * google.rpc name; `ErrorInfo` carries gw's code and the field, `RetryInfo` the `retry-after`
 * (Google clients, Gemini CLI among them, pace their retries by it).
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

/** The error body gw answers with on every Gemini route (the format's `errorBody`). */
export function googleErrorBody(err: GatewayError): string {
  return JSON.stringify(toGoogleError(err));
}

/**
 * An `{"error": …}` payload inside a Gemini stream → GatewayError: a 4xx keeps its status (a
 * first-event RESOURCE_EXHAUSTED is retried as a 429), anything else is 502. `first`: it came
 * before anything else, so it is the answer to the request rather than a mid-stream failure.
 */
export function geminiStreamError(error: unknown, provider: string, first = false): GatewayError {
  const e = typeof error === 'object' && error !== null ? (error as { code?: unknown; message?: unknown; status?: unknown }) : {};
  const upstream = typeof e.code === 'number' ? e.code : undefined;
  const detail = typeof e.message === 'string' && e.message !== '' ? e.message : 'upstream stream error';
  const message = first ? `provider ${provider}: ${detail}` : `provider ${provider} failed mid-stream: ${detail}`;
  // an upstream 4xx keeps its status (docs/design.md "Errors"); anything else is a 502
  const err =
    upstream !== undefined && upstream >= 400 && upstream < 500
      ? upstreamError(upstream, message, { provider })
      : errors.UPSTREAM_ERROR(message, { upstreamStatus: upstream, upstreamCode: typeof e.status === 'string' ? e.status : undefined, provider });
  if (typeof e.status === 'string' && err.status < 500) err.code = e.status;
  return err;
}

const RETRY_INFO = 'type.googleapis.com/google.rpc.RetryInfo';

/**
 * A Google error body from an upstream (a provider's `readError`; some front ends wrap it in
 * a one-element array): `status` → `code`, `RetryInfo.retryDelay` → whole seconds (s).
 */
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
