/**
 * The kernel's error catalog: each code once, with its status (docs/design.md "Errors") and
 * message; the SDK gathers the entries plugins use as `errors` (sdk/errors.ts).
 */
import { defineError } from './errors.ts';
import { clip, QUOTE_MAX } from '../lib/quote.ts';

// the request itself; an entry quoting it gives a `logMessage` without the quote

/** A request field gw (or a translation) cannot accept; `param` names it. Made by {@link badRequest}. */
export const INVALID_REQUEST = defineError<string>('invalid_request_body', 400, (m) => m);
export const BODY_TOO_LARGE = defineError('body_too_large', 413, 'request body is larger than max_body_bytes');
export const ROUTE_NOT_FOUND = defineError<{ method: string; path: string }>('route_not_found', 404, (p) => `no route ${p.method} ${p.path}`);
export const METHOD_NOT_ALLOWED = defineError<{ method: string; path: string }>(
  'method_not_allowed',
  405,
  (p) => `method ${p.method} is not allowed on ${p.path}`,
);
export const METHOD_NOT_IMPLEMENTED = defineError<string>('method_not_implemented', 501, (m) => `method ${m} is not supported by gw`);
export const MODEL_NOT_FOUND = defineError<{ what: string; near: string[] }>(
  'model_not_found',
  404,
  (p) => `model ${p.what} is not served by any provider${p.near.length ? `; did you mean ${p.near.map((m) => `'${m}'`).join(', ')}?` : ''}`,
  { param: 'model', logMessage: 'model: the requested model is not served by any provider' },
);
export const EMBEDDINGS_UNSUPPORTED = defineError<{ model: string; provider: string; kind: string }>(
  'embeddings_unsupported',
  400,
  (p) => `model '${p.model}' is served by provider ${p.provider} (kind ${p.kind}), which has no embeddings endpoint`,
  { param: 'model' },
);

// what a key may do (its 401s: lib/http/auth.ts)
/** A model outside the key's `models` patterns (checked on the canonical id, before any upstream call or reservation). */
export const MODEL_NOT_ALLOWED = defineError<{ key: string; model: string; canonical: string; patterns: readonly string[] }>(
  'model_not_allowed',
  403,
  (p) =>
    `key '${p.key}' may not call model '${p.model}'${p.canonical === p.model ? '' : ` (alias of '${p.canonical}')`}; it may call: ${p.patterns.join(', ')}`,
  { param: 'model', refusal: 'model_not_allowed', logMessage: (p) => `key '${p.key}' may not call the requested model; it may call: ${p.patterns.join(', ')}` },
);
/** The key already has `max_parallel_requests` requests in flight (over every instance on a shared store). */
export const PARALLEL_LIMIT = defineError<{ key: string; limit: number }>(
  'parallel_limit_exceeded',
  429,
  (p) => `key '${p.key}' already has ${p.limit} request${p.limit === 1 ? '' : 's'} in flight (max_parallel_requests); retry when one has finished`,
  { refusal: 'max_parallel_requests' },
);

// the client and gw itself
export const CLIENT_CLOSED = defineError('client_closed', 499, 'client closed the connection');
export const INTERNAL = defineError('internal_error', 500, 'internal error', { type: 'server_error' });
/** A plugin broke the contract (e.g. a bail hook returned something that is not an answer). */
export const PLUGIN_CONTRACT = defineError<{ plugin: string; hook: string; detail: string }>(
  'plugin_contract_violation',
  500,
  (p) => `plugin '${p.plugin}' broke the ${p.hook} contract: ${p.detail}`,
  { type: 'server_error', verbatim: ['detail'] },
);
/** Dispatch found no provider to try (every one skipped before a call). */
export const NO_PROVIDER = defineError('no_provider', 502, 'no provider could be tried');

/** 400 naming the field: `message` (its path and rule, never a quote); `got` is quoted to the client only. */
export function badRequest(message: string, param: string | null = null, got?: string) {
  if (got === undefined) return INVALID_REQUEST(message, { param });
  return INVALID_REQUEST(`${message} (got ${clip(got, QUOTE_MAX + 3)})`, { param, logMessage: message }); // + quoted()'s quotes and mark
}

/** Throws a translator's 400 `<param>: <message>`; `got` is quoted to the client only. */
export function failField(param: string, message: string, got?: string): never {
  throw badRequest(`${param}: ${message}`, param, got);
}

/** `v` as a 400 quotes it (the `got` of {@link badRequest}): a string in JSON quotes, cut (lib/quote.ts); a scalar as is; an object or array by its kind. */
export function quoted(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(clip(v));
  if (v === null || typeof v !== 'object') return String(v);
  return Array.isArray(v) ? 'an array' : 'an object';
}
