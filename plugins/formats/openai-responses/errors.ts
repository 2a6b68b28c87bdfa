/**
 * The openai-responses format's own error codes, and reading the failures a native
 * Responses stream reports in-band (`error` and `response.failed` events after HTTP 200).
 * Errors on these routes use OpenAI's shape `{"error": {message, type, code, param}}`.
 *
 * @see https://platform.openai.com/docs/api-reference/responses-streaming/error
 * @see https://platform.openai.com/docs/api-reference/responses-streaming/response/failed
 */
import { UPSTREAM_ERROR } from '../../../core/error-codes.ts';
import { defineError, type GatewayError, upstreamError } from '../../../core/errors.ts';

/**
 * No stored response with this id for this key: never stored (`store: false`), expired
 * (`[responses] ttl_days`), deleted, or created with another gateway key. `param` names
 * where the id came from (`previous_response_id`, `response_id`).
 */
export const RESPONSE_NOT_FOUND = defineError<{ id: string; what?: string }>(
  'response_not_found',
  404,
  (p) => `${p.what ?? 'response'} with id '${p.id}' not found (responses are kept for [responses] ttl_days and only for the gateway key that created them)`,
  // the id is the client's: logs and the request log keep what kind of id was not found
  {
    logMessage: (p) =>
      `${p.what === undefined || p.what === 'response' || p.what === 'previous response' ? (p.what ?? 'response') : 'a response the conversation continues'} not found`,
  },
);

/**
 * A stored response whose record gw cannot read (damaged in the store, or not written by gw):
 * it cannot be retrieved or continued; deleting it still works. `what` as for RESPONSE_NOT_FOUND.
 */
export const RESPONSE_UNREADABLE = defineError<{ id: string; what?: string }>(
  'response_unreadable',
  409,
  (p) => `${p.what ?? 'response'} with id '${p.id}' is stored but its record cannot be read; delete it and start a new conversation`,
);

/** A conversation longer than `[responses] max_chain_length`, continued through previous_response_id. */
export const CONVERSATION_TOO_LONG = defineError<number>(
  'conversation_too_long',
  400,
  (n) =>
    `previous_response_id: the conversation already holds more than ${n} responses ([responses] max_chain_length); start a new one with what matters of it in input`,
  { param: 'previous_response_id' },
);

/**
 * A request that stored items would make larger than `max_body_bytes` once gw expands them
 * into it: the conversation `previous_response_id` continues, or the items its
 * `item_reference`s name (`param` = `input`).
 */
export const CONVERSATION_TOO_LARGE = defineError<{ limit: number; param: string }>('conversation_too_large', 400, (p) =>
  p.param === 'previous_response_id'
    ? `previous_response_id: the conversation it continues, with this request, is larger than max_body_bytes (${p.limit} bytes); start a new one with what matters of it in input`
    : `${p.param}: the stored items its item_reference items name make the request larger than max_body_bytes (${p.limit} bytes)`,
);

/** One of OpenAI's in-band failure payloads, read loosely. */
interface FailurePayload {
  code?: unknown;
  message?: unknown;
  type?: unknown;
  param?: unknown;
  error?: { code?: unknown; message?: unknown; type?: unknown; param?: unknown } | null;
  response?: { error?: { code?: unknown; message?: unknown } | null } | null;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/**
 * The GatewayError for a native stream's `error` event or `response.failed` (its data, parsed).
 * `first`: it came before anything was sent, so it is the answer to the request: a 4xx-like
 * code (`rate_limit_exceeded` → 429, `invalid_request_error`/`invalid_prompt` → 400) keeps
 * that status so dispatch retries or answers it properly; anything else is 502
 * `upstream_error` with the upstream's code kept.
 */
export function responsesStreamError(data: FailurePayload | undefined, provider: string, first = false): GatewayError {
  const d = data ?? {};
  const e = d.error ?? d.response?.error ?? d;
  const code = str(e.code) ?? str(d.code) ?? str((e as { type?: unknown }).type) ?? 'server_error';
  const detail = str(e.message) ?? str(d.message) ?? `upstream stream error (${code})`;
  const message = first ? `provider ${provider}: ${detail}` : `provider ${provider} failed mid-stream: ${detail}`;
  const status = code === 'rate_limit_exceeded' ? 429 : code === 'invalid_request_error' || code === 'invalid_prompt' ? 400 : 502;
  const param = str((e as { param?: unknown }).param) ?? null;
  const err = status < 500 ? upstreamError(status, message, { code, param, provider }) : UPSTREAM_ERROR(message, { provider });
  err.code = code;
  return err;
}
