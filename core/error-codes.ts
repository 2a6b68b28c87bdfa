/**
 * The core's error catalog: each code once, with its HTTP status and message template
 * (fastify's `lib/errors.js` idea). Providers and extensions define their own entries with
 * the same `defineError`; a refusal code (rate limit, budget) belongs to its extension.
 *
 * Statuses follow docs/design.md "Errors": 400 invalid body (names the field), 401 missing or
 * unknown key, 403 gateway key on an admin route, 404 unknown model, 413 too large, 415
 * not JSON, 502 upstream failure, 503 unavailable, 504 upstream timeout.
 */
import { defineError } from './errors.ts';

// ── the request itself ──────────────────────────────────────────────────────────────
// An entry whose message quotes the request (a header value, an id, a parser's excerpt of
// the body) gives a `logMessage` without it: logs and the request log keep that one.

/** A request field gw (or a translation) cannot accept; `param` names it. Made by {@link badRequest}. */
export const INVALID_REQUEST = defineError<string>('invalid_request_body', 400, (m) => m);
export const INVALID_JSON = defineError<string>('invalid_json', 400, (detail) => `request body is not valid JSON: ${detail}`, {
  // V8's parse errors quote the text around the fault; where it is, is enough
  logMessage: (detail) => `request body is not valid JSON${/ at position \d+/.exec(detail)?.[0] ?? ''}`,
});
export const NOT_AN_OBJECT = defineError('invalid_request_body', 400, 'request body must be a JSON object');
/** A body nested deeper than gw walks and serializes safely (core/http/body.ts `MAX_JSON_DEPTH`); `param` names where. */
export const BODY_TOO_DEEP = defineError<{ max: number; at: string }>(
  'body_too_deep',
  400,
  (p) => `request body nests objects and arrays deeper than ${p.max} levels (at ${p.at})`,
);
export const UNSUPPORTED_MEDIA_TYPE = defineError<string>(
  'unsupported_media_type',
  415,
  (got) => `expected Content-Type: application/json, got ${got || 'none'}`,
  { logMessage: 'expected Content-Type: application/json' },
);
export const BODY_TOO_LARGE = defineError('body_too_large', 413, 'request body is larger than max_body_bytes');
export const UNSUPPORTED_CONTENT_ENCODING = defineError<string>(
  'unsupported_content_encoding',
  415,
  (got) => `unsupported Content-Encoding '${got}': send the body as is (identity), gzip, deflate or br`,
  { param: 'content-encoding', logMessage: 'unsupported Content-Encoding: send the body as is (identity), gzip, deflate or br' },
);
export const INVALID_BODY_ENCODING = defineError<string>(
  'invalid_body_encoding',
  400,
  (enc) => `the request body is not valid ${enc} data (Content-Encoding: ${enc})`,
  { param: 'content-encoding', logMessage: 'the request body is not valid data of its Content-Encoding' },
);
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

// ── keys ────────────────────────────────────────────────────────────────────────────
export const MISSING_KEY = defineError<string>('missing_api_key', 401, (how) => `missing gateway key: send ${how}`);
export const UNKNOWN_KEY = defineError('invalid_api_key', 401, 'unknown gateway key');
export const ADMIN_TOKEN_AS_KEY = defineError('invalid_api_key', 401, 'the admin token is not a gateway key; use a key from [keys] or gw keys create');
export const MISSING_ADMIN_TOKEN = defineError('missing_api_key', 401, 'missing admin token: send Authorization: Bearer <admin_token>');
export const INVALID_ADMIN_TOKEN = defineError('invalid_api_key', 401, 'invalid admin token');
export const ADMIN_DISABLED = defineError('invalid_api_key', 401, 'admin routes are disabled: no admin_token in the config');
export const ADMIN_REQUIRED = defineError('admin_required', 403, 'a gateway key cannot call admin routes; use the admin token');
/** A virtual key past its `expires_at`. */
export const KEY_EXPIRED = defineError<{ name: string; at: string }>('key_expired', 401, (p) => `gateway key '${p.name}' expired at ${p.at}`);
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

// ── the client and gw itself ────────────────────────────────────────────────────────
export const CLIENT_CLOSED = defineError('client_closed', 499, 'client closed the connection');
export const INTERNAL = defineError('internal_error', 500, 'internal error', { type: 'server_error' });
/** A plugin broke the contract (e.g. a bail hook returned something that is not an answer). */
export const PLUGIN_CONTRACT = defineError<{ plugin: string; hook: string; detail: string }>(
  'plugin_contract_violation',
  500,
  (p) => `plugin '${p.plugin}' broke the ${p.hook} contract: ${p.detail}`,
  { type: 'server_error' },
);
export const STORE_UNAVAILABLE = defineError<string>('store_unavailable', 503, (detail) => `the store is unavailable: ${detail}`, {
  refusal: 'store_unavailable',
});
export const METRICS_UNAVAILABLE = defineError<string>('metrics_unavailable', 503, (detail) => detail);

// ── upstreams: every entry here is counted in gw_upstream_errors_total ──────────────
/** An upstream 5xx (529 included) that retries did not cure, or an error event inside its stream. */
export const UPSTREAM_ERROR = defineError<string>('upstream_error', 502, (m) => m, { upstream: true });
export const UPSTREAM_TIMEOUT = defineError<{ provider: string; seconds: number; url: string }>(
  'upstream_timeout',
  504,
  (p) => `provider ${p.provider} timed out after ${p.seconds} s (${p.url})`,
  { upstream: true },
);
export const UPSTREAM_UNREACHABLE = defineError<{ provider: string; reason: string; url: string }>(
  'upstream_unreachable',
  502,
  (p) => `provider ${p.provider} is unreachable: ${p.reason} (${p.url})`,
  { upstream: true },
);
export const UPSTREAM_CONNECTION_LOST = defineError<{ provider: string; reason: string }>(
  'upstream_connection_lost',
  502,
  (p) => `provider ${p.provider} connection was lost mid-response: ${p.reason}`,
  { upstream: true },
);
/** The stream ended without its terminator (`[DONE]`, `message_stop`, a finish reason). */
export const UPSTREAM_TRUNCATED = defineError<{ provider: string; expected: string }>(
  'upstream_truncated',
  502,
  (p) => `provider ${p.provider} ended the stream before ${p.expected}`,
  { upstream: true },
);
/** A body or event gw cannot read: bad JSON, a missing required part, a wrong content type. */
export const UPSTREAM_MALFORMED = defineError<{ provider: string; what: string }>('upstream_malformed', 502, (p) => `provider ${p.provider} sent ${p.what}`, {
  upstream: true,
});
/** One upstream SSE event or JSON body larger than the provider's `max_event_bytes`. */
export const UPSTREAM_TOO_LARGE = defineError<{ provider: string; what: string; limit: number }>(
  'upstream_too_large',
  502,
  (p) => `provider ${p.provider} sent ${p.what} larger than ${p.limit} bytes (max_event_bytes)`,
  { upstream: true },
);
export const CIRCUIT_OPEN = defineError<{ provider: string; seconds: number }>(
  'circuit_open',
  503,
  (p) => `provider ${p.provider} is unavailable (circuit open, retry in ${p.seconds} s)`,
);
export const NO_PROVIDER = defineError('no_provider', 502, 'no provider could be tried');
export const DISCOVERY_FAILED = defineError<string>('discovery_failed', 502, (m) => `model discovery failed: ${m}`);

// ── admin API ───────────────────────────────────────────────────────────────────────
export const PROVIDER_EXISTS = defineError<{ name: string; where: string }>('provider_exists', 409, (p) => `provider '${p.name}' already exists (${p.where})`, {
  param: 'name',
});
export const PROVIDER_NOT_FOUND = defineError<string>('provider_not_found', 404, (name) => `no provider '${name}'`);
export const KEY_EXISTS = defineError<string>('key_exists', 409, (name) => `key '${name}' already exists`, { param: 'name' });
export const KEY_NOT_FOUND = defineError<string>('key_not_found', 404, (name) => `no key '${name}'`);
export const DEFINED_IN_FILE = defineError<{ what: 'provider' | 'key'; name: string; file: string }>(
  'defined_in_config_file',
  409,
  (p) =>
    `${p.what} '${p.name}' is defined in the config file ${p.file}; remove [${p.what === 'provider' ? 'providers' : 'keys'}.${p.name}] there, then reload (gw reload)`,
);
export const KEY_IN_FILE = defineError<{ name: string; file: string; action: string }>(
  'defined_in_config_file',
  409,
  (p) =>
    `key '${p.name}' is defined in the config file ${p.file}, which gives its secret and settings; to ${p.action}, edit [keys.${p.name}] there, then reload (gw reload)`,
);
export const INVALID_PROVIDER = defineError<string>('invalid_provider', 400, (m) => `invalid provider: ${m}`);
export const MODELS_REQUIRED = defineError<{ name: string; why: string }>(
  'models_required',
  400,
  (p) => `cannot create provider '${p.name}': ${p.why}; give models`,
  { param: 'models' },
);
export const CONFIG_INVALID = defineError<string>('config_invalid', 400, (m) => `reload refused, the running config is kept: ${m}`);

/** Longest quote of the request a 400 carries (a value at fault may be megabytes). */
const QUOTE_MAX = 200;

/**
 * 400 naming the offending field. `message` starts with the field's path and states the
 * rule; it must not quote the request. `got`, when given, is the value at fault, for the
 * client only: its answer reads `<message> (got <got>)`, cut to 200 characters, while logs and
 * the request log keep `message` alone (see GatewayError.logMessage).
 */
export function badRequest(message: string, param: string | null = null, got?: string) {
  if (got === undefined) return INVALID_REQUEST(message, { param });
  const quote = got.length > QUOTE_MAX ? `${got.slice(0, QUOTE_MAX)}…` : got;
  return INVALID_REQUEST(`${message} (got ${quote})`, { param, logMessage: message });
}

/** `v` as a 400 quotes it (the `got` of {@link badRequest}): a string in JSON quotes, cut first; a scalar as is; an object or array by its kind. */
export function quoted(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.length > QUOTE_MAX ? v.slice(0, QUOTE_MAX) : v);
  if (v === null || typeof v !== 'object') return String(v);
  return Array.isArray(v) ? 'an array' : 'an object';
}
