/** What the upstream client and the protocols answer when an upstream fails (`upstream` entries are counted). */
import { defineError, type ErrorExtra, GatewayError } from '../../core/errors.ts';

/** An upstream 5xx (529 included) that retries did not cure, or an error event inside its stream. */
export const UPSTREAM_ERROR = defineError<string>('upstream_error', 502, (m) => m, { upstream: true });
export const UPSTREAM_TIMEOUT = defineError<{ provider: string; seconds: number; url: string }>(
  'upstream_timeout',
  504,
  (p) => `provider ${p.provider} timed out after ${p.seconds} s (${p.url})`,
  { upstream: true, verbatim: ['url'] },
);
export const UPSTREAM_UNREACHABLE = defineError<{ provider: string; reason: string; url: string }>(
  'upstream_unreachable',
  502,
  (p) => `provider ${p.provider} is unreachable: ${p.reason} (${p.url})`,
  { upstream: true, verbatim: ['reason', 'url'] },
);
export const UPSTREAM_CONNECTION_LOST = defineError<{ provider: string; reason: string }>(
  'upstream_connection_lost',
  502,
  (p) => `provider ${p.provider} connection was lost mid-response: ${p.reason}`,
  { upstream: true, verbatim: ['reason'] },
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
  verbatim: ['what'],
});
/** One upstream SSE event or JSON body larger than the provider's `max_event_bytes`. */
export const UPSTREAM_TOO_LARGE = defineError<{ provider: string; what: string; limit: number }>(
  'upstream_too_large',
  502,
  (p) => `provider ${p.provider} sent ${p.what} larger than ${p.limit} bytes (max_event_bytes)`,
  { upstream: true, verbatim: ['what'] },
);
export const DISCOVERY_FAILED = defineError<string>('discovery_failed', 502, (m) => `model discovery failed: ${m}`);

/** An upstream's own 4xx passed on (status, message, code); a 400/422's log-safe message keeps status, code and field only. */
export function upstreamError(status: number, message: string, extra: ErrorExtra & { code?: string | null } = {}): GatewayError {
  const logMessage = extra.logMessage ?? (status === 400 || status === 422 ? refusalSummary(status, extra) : undefined);
  return new GatewayError(status, message, { ...extra, logMessage, upstreamStatus: extra.upstreamStatus ?? status });
}

/** `provider openai refused the request (HTTP 400, invalid_value, param messages[0].role); its message is kept with bodies only`. */
function refusalSummary(status: number, extra: ErrorExtra & { code?: string | null }): string {
  const code = extra.code ? `, ${extra.code}` : '';
  const param = extra.param ? `, param ${extra.param}` : '';
  return `provider ${extra.provider ?? '(unknown)'} refused the request (HTTP ${status}${code}${param}); its message may quote the request and is kept with bodies only`;
}
