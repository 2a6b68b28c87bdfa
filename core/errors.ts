/**
 * GatewayError and its catalog (`defineError`, fastify's `lib/errors.js` idea): every error gw
 * answers with but an upstream's own 4xx and a bug's 500. Outside a request: lib/user-error.ts.
 */
import { clipParams } from '../lib/quote.ts';

/** Error `type` values, OpenAI's vocabulary (other formats map them to theirs). */
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

/** Per-occurrence details an error may carry beyond its catalog entry. */
export interface ErrorExtra {
  /** The request field at fault (`param` in the OpenAI shape). */
  param?: string | null;
  /** Response headers, e.g. `retry-after`. */
  headers?: Record<string, string>;
  /** HTTP status the upstream answered with, when it did. */
  upstreamStatus?: number;
  /** The upstream's own error code (`overloaded_error`, `INTERNAL`…) beside gw's catalog code. */
  upstreamCode?: string;
  /** Provider the failure came from. */
  provider?: string;
  /** What logs keep when `message` quotes the client's request: the field and the rule, never the value. */
  logMessage?: string;
  cause?: unknown;
}

/** What the catalog fixes for a code. */
export interface ErrorDef {
  readonly code: string;
  readonly status: number;
  readonly type: ErrorType;
  /** The upstream failed (timeout, unreachable, cut, malformed…): counted in gw_upstream_errors_total. */
  readonly upstream: boolean;
  /** A limit refused the request before any upstream call: the `reason` label of gw_refusals_total. */
  readonly refusal: string | undefined;
  /** false: repeating cannot help though clients retry the status (a spent budget's 429); see `shouldRetry`. */
  readonly retry: false | undefined;
}

/** An error with an HTTP status, rendered in the route's format's error shape (OpenAI's by default). */
export class GatewayError extends Error {
  status: number;
  type: ErrorType;
  code: string | null;
  param: string | null;
  headers: Record<string, string> | undefined;
  upstreamStatus: number | undefined;
  /** The upstream's own error code, kept beside gw's catalog `code` (see ErrorExtra). */
  upstreamCode: string | undefined;
  provider: string | undefined;
  /** See ErrorExtra; undefined when `message` quotes nothing of the request. */
  logMessage: string | undefined;
  /** The catalog entry it was made from; undefined for an upstream's own 4xx and for bugs. */
  readonly def: ErrorDef | undefined;
  /** Already sent to the client as a stream event (a passthrough forwarded it): not repeated. */
  forwarded = false;

  constructor(status: number, message: string, opts: ErrorExtra & { type?: ErrorType; code?: string | null; def?: ErrorDef } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'GatewayError';
    this.status = status;
    this.type = opts.type ?? opts.def?.type ?? typeForStatus(status);
    this.code = opts.code ?? opts.def?.code ?? null;
    this.param = opts.param ?? null;
    this.headers = opts.headers;
    this.upstreamStatus = opts.upstreamStatus;
    this.upstreamCode = opts.upstreamCode;
    this.provider = opts.provider;
    this.logMessage = opts.logMessage;
    this.def = opts.def;
  }

  /** The OpenAI error body. */
  toJSON(): { error: { message: string; type: string; code: string | null; param: string | null; upstream_status?: number; upstream_code?: string } } {
    const error: { message: string; type: string; code: string | null; param: string | null; upstream_status?: number; upstream_code?: string } = {
      message: this.message,
      type: this.type,
      code: this.code,
      param: this.param,
    };
    if (this.upstreamStatus !== undefined) error.upstream_status = this.upstreamStatus;
    if (this.upstreamCode !== undefined) error.upstream_code = this.upstreamCode;
    return { error };
  }
}

/** A catalog entry: call it with the message's parameters (and per-occurrence extras) to get the error. */
export interface ErrorFactory<P> extends ErrorDef {
  (params: P, extra?: ErrorExtra): GatewayError;
  /** True when `err` was made from this entry. */
  is(err: unknown): boolean;
}

/**
 * Defines a catalog entry; `message` and `logMessage` are strings or functions of the
 * parameters, each string parameter cut to 200 characters (lib/quote.ts) unless `verbatim`.
 */
export function defineError<P = void>(
  code: string,
  status: number,
  message: string | ((params: P) => string),
  opts: Partial<Pick<ErrorDef, 'type' | 'refusal' | 'retry'>> & {
    upstream?: boolean;
    param?: string;
    logMessage?: string | ((params: P) => string);
    verbatim?: Array<keyof P & string>;
  } = {},
): ErrorFactory<P> {
  const def: ErrorDef = { code, status, type: opts.type ?? typeForStatus(status), upstream: opts.upstream ?? false, refusal: opts.refusal, retry: opts.retry };
  const render = typeof message === 'string' ? () => message : message;
  const safe = opts.logMessage;
  const renderSafe = safe === undefined ? undefined : typeof safe === 'string' ? () => safe : safe;
  const make = (params: P, extra: ErrorExtra = {}) => {
    const shown = clipParams(params, opts.verbatim);
    return new GatewayError(status, render(shown), { ...extra, param: extra.param ?? opts.param, logMessage: extra.logMessage ?? renderSafe?.(shown), def });
  };
  return Object.assign(make, def, { is: (err: unknown) => err instanceof GatewayError && err.def === def });
}

/** The message the operator's stores keep for `err`: the log-safe one unless they keep bodies anyway (`withBodies`). */
export function messageForStores(err: GatewayError, withBodies = false): string {
  return withBodies ? err.message : (err.logMessage ?? err.message);
}

/**
 * The `x-should-retry` header for `err`: 'false' for a 4xx clients must not repeat (Claude Code
 * retries even a 401 for minutes without it) and for `retry: false`; none otherwise.
 */
export function shouldRetry(err: GatewayError): 'false' | undefined {
  const status = err.status;
  if (err.def?.retry === false) return 'false';
  return status >= 400 && status < 500 && status !== 408 && status !== 409 && status !== 429 ? 'false' : undefined;
}

/** The error `type` of the statuses that have their own; else by class (5xx, 4xx). */
const TYPE_FOR_STATUS: Readonly<Record<number, ErrorType>> = {
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  429: 'rate_limit_error',
  502: 'upstream_error',
  503: 'service_unavailable',
  504: 'timeout_error',
};

/** The error `type` a status stands for when the catalog gives none. */
export function typeForStatus(status: number): ErrorType {
  return TYPE_FOR_STATUS[status] ?? (status >= 500 ? 'server_error' : 'invalid_request_error');
}
