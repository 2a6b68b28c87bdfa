/**
 * Messages-format errors, both ways: the error body a Messages upstream answers with (read
 * into a GatewayError), and the one gw answers Messages clients with
 * (`{"type": "error", "error": {"type", "message"}}`). One table of Anthropic's error types
 * and their HTTP statuses serves both.
 * @see Anthropic API: Errors
 */
import { errors, type GatewayError } from 'gw/plugin';
import { own } from 'gw/plugin/format';
import { upstreamError } from '../../lib/http/errors.ts';
import type { UpstreamErrorInfo } from '../../lib/http/client.ts';

/** Anthropic's error types and the HTTP status each stands for. */
const STATUS_OF_TYPE: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

/** HTTP status a Messages error `type` stands for; 500 when unknown. */
export function messagesErrorStatus(type: string | undefined): number {
  return (type === undefined ? undefined : own(STATUS_OF_TYPE, type)) ?? 500;
}

/** Messages error `type` for an HTTP status (Anthropic's vocabulary). */
export function messagesErrorType(status: number): string {
  switch (status) {
    case 400:
    case 415:
      return 'invalid_request_error';
    case 413:
      return 'request_too_large';
    case 401:
      return 'authentication_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 429:
      return 'rate_limit_error';
    case 504:
      return 'timeout_error';
    case 529:
      return 'overloaded_error';
    default:
      return 'api_error';
  }
}

/** The Messages error body gw answers with. */
export function messagesErrorBody(err: GatewayError): string {
  return JSON.stringify({ type: 'error', error: { type: messagesErrorType(err.status), message: err.message } });
}

/** Reads a Messages error body (`{"type":"error","error":{"type","message"}}`) for the upstream client. */
export function readMessagesError(_status: number, text: string): UpstreamErrorInfo {
  const error = (JSON.parse(text) as { error?: unknown } | null)?.error;
  if (typeof error !== 'object' || error === null) return {};
  const { type, message } = error as { type?: unknown; message?: unknown };
  return { message: typeof message === 'string' && message !== '' ? message : undefined, code: typeof type === 'string' ? type : null };
}

/**
 * An `event: error` inside a Messages stream → GatewayError: a 4xx type keeps its status (a
 * first-event `rate_limit_error` is retried as a 429), a 5xx type is 502. `first`: nothing was streamed yet.
 */
export function messagesStreamError(error: unknown, provider: string, first = false): GatewayError {
  const e = typeof error === 'object' && error !== null ? (error as { type?: unknown; message?: unknown }) : {};
  const type = typeof e.type === 'string' ? e.type : 'api_error';
  const detail = typeof e.message === 'string' && e.message !== '' ? e.message : `upstream stream error (${type})`;
  const status = messagesErrorStatus(type);
  // a first event is the upstream's answer to the request, as an error status would be
  const message = first ? `provider ${provider}: ${detail}` : `provider ${provider} failed mid-stream: ${detail}`;
  return status < 500
    ? upstreamError(status, message, { code: type, provider })
    : errors.UPSTREAM_ERROR(message, { upstreamStatus: status, upstreamCode: type, provider });
}
