/**
 * The one error type gw throws on purpose. Everything the client sees as an error is a
 * GatewayError; anything else reaching the error boundary is a bug and answers 500.
 */

/** Error `type` values, OpenAI's vocabulary. */
export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'rate_limit_error'
  | 'upstream_error'
  | 'timeout_error'
  | 'server_error'
  | 'service_unavailable';

/**
 * An error with an HTTP status, rendered as `{"error": {message, type, code, param}}`
 * (or the Messages shape on /v1/messages).
 * `upstreamStatus` is kept when the failure came from a provider.
 */
export class GatewayError extends Error {
  status: number;
  type: ErrorType;
  code: string | null;
  param: string | null;
  headers: Record<string, string> | undefined;
  upstreamStatus: number | undefined;
  provider: string | undefined;

  constructor(
    status: number,
    message: string,
    opts: { type?: ErrorType; code?: string | null; param?: string | null; headers?: Record<string, string>; upstreamStatus?: number; provider?: string; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'GatewayError';
    this.status = status;
    this.type = opts.type ?? defaultType(status);
    this.code = opts.code ?? null;
    this.param = opts.param ?? null;
    this.headers = opts.headers;
    this.upstreamStatus = opts.upstreamStatus;
    this.provider = opts.provider;
  }

  /** The OpenAI error body. */
  toJSON(): { error: { message: string; type: string; code: string | null; param: string | null; upstream_status?: number } } {
    const error: { message: string; type: string; code: string | null; param: string | null; upstream_status?: number } = {
      message: this.message,
      type: this.type,
      code: this.code,
      param: this.param,
    };
    if (this.upstreamStatus !== undefined) error.upstream_status = this.upstreamStatus;
    return { error };
  }
}

function defaultType(status: number): ErrorType {
  switch (status) {
    case 401: return 'authentication_error';
    case 403: return 'permission_error';
    case 404: return 'not_found_error';
    case 429: return 'rate_limit_error';
    case 502: return 'upstream_error';
    case 503: return 'service_unavailable';
    case 504: return 'timeout_error';
    default: return status >= 500 ? 'server_error' : 'invalid_request_error';
  }
}

/** Messages-format error `type` for an HTTP status (Anthropic's vocabulary). */
export function messagesErrorType(status: number): string {
  switch (status) {
    case 400: case 413: case 415: return status === 413 ? 'request_too_large' : 'invalid_request_error';
    case 401: return 'authentication_error';
    case 403: return 'permission_error';
    case 404: return 'not_found_error';
    case 429: return 'rate_limit_error';
    case 504: return 'timeout_error';
    case 529: return 'overloaded_error';
    default: return 'api_error';
  }
}

const MESSAGES_ERROR_STATUS: Record<string, number> = {
  invalid_request_error: 400, authentication_error: 401, billing_error: 402, permission_error: 403, not_found_error: 404,
  request_too_large: 413, rate_limit_error: 429, api_error: 500, timeout_error: 504, overloaded_error: 529,
};

/** HTTP status a Messages-format error `type` stands for (the inverse of messagesErrorType); 500 when unknown. */
export function messagesErrorStatus(type: string | undefined): number {
  return MESSAGES_ERROR_STATUS[type ?? ''] ?? 500;
}

/** 400 naming the offending field. */
export function badRequest(message: string, param: string | null = null, code: string | null = null): GatewayError {
  return new GatewayError(400, message, { param, code });
}
