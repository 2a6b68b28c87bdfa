/**
 * Reading the failures a native Responses stream reports in-band (`error` and
 * `response.failed` events after HTTP 200). Errors on the Responses routes use OpenAI's
 * shape `{"error": {message, type, code, param}}` (`OPENAI_ERRORS` from `gw/plugin`).
 *
 * @see https://platform.openai.com/docs/api-reference/responses-streaming/error
 * @see https://platform.openai.com/docs/api-reference/responses-streaming/response/failed
 */
import { errors, type GatewayError } from 'gw/plugin';
import { errorPayload, malformedFirst } from '../../lib/common/sse-data.ts';
import type { SseEvent } from '../../lib/provider.ts';
import { upstreamError } from '../../lib/http/errors.ts';
import { typeOf } from './passthrough.ts';

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
  const err = status < 500 ? upstreamError(status, message, { code, param, provider }) : errors.UPSTREAM_ERROR(message, { provider, upstreamCode: code });
  return err;
}

/**
 * A native stream's first event as a failure before the stream (retried, or answered with
 * a status): an `error` or `response.failed` event (its data read loosely), or malformed
 * data; undefined for an ordinary first event.
 */
export function responsesFirstError(ev: SseEvent, provider: string): GatewayError | undefined {
  const type = ev.event ?? typeOf(ev.data);
  if (type !== 'error' && type !== 'response.failed') return malformedFirst(ev.data, provider);
  return responsesStreamError(errorPayload(ev.data) as FailurePayload, provider, true);
}
