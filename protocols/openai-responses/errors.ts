/**
 * Reading the failures a native Responses stream reports in-band (`error` and
 * `response.failed` events after HTTP 200). Errors on the Responses routes use OpenAI's
 * shape `{"error": {message, type, code, param}}` (`OPENAI_ERRORS` from `gw/plugin`).
 * @see OpenAI API reference: Responses streaming events › error, Responses streaming events › response.failed
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
 * The GatewayError for a native stream's `error` or `response.failed` data. A 4xx-like code
 * keeps its status (429, 400) so dispatch retries or answers it properly; else 502.
 * `first`: it came before anything was sent, so it is the answer to the request.
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

/** A native stream's first event as a failure (an `error`, `response.failed` or malformed data), or undefined. */
export function responsesFirstError(ev: SseEvent, provider: string): GatewayError | undefined {
  const type = ev.event ?? typeOf(ev.data);
  if (type !== 'error' && type !== 'response.failed') return malformedFirst(ev.data, provider);
  return responsesStreamError(errorPayload(ev.data) as FailurePayload, provider, true);
}
