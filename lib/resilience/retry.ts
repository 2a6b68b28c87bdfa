/**
 * Retry policy (docs/design.md "Routing, retries, fallbacks"): which failures are retried on the
 * same provider, which move on to the next provider or fallback, and the backoff.
 */
import { CIRCUIT_OPEN } from './breaker.ts';
import { UPSTREAM_UNREACHABLE } from '../http/errors.ts';
import { GatewayError } from '../../core/errors.ts';
import { UPSTREAM_AUTH_FAILED } from '../http/client.ts';

/** What to do after a failed attempt. */
export type Verdict = 'retry' | 'next' | 'fail';

/** Longest upstream `retry-after` gw waits for before retrying; longer ones are answered at once. */
export const MAX_RETRY_AFTER_MS = 5_000;

/**
 * `retry` here (connect error; 408, 429, 5xx without a retry-after over 5 s), `next` provider
 * (timeout, long retry-after, open circuit, gw's credentials refused), or `fail` (the rest).
 */
export function classify(err: unknown): Verdict {
  if (!(err instanceof GatewayError)) return 'fail';
  if (err.status === 504 || CIRCUIT_OPEN.is(err) || UPSTREAM_AUTH_FAILED.is(err)) return 'next';
  if (UPSTREAM_UNREACHABLE.is(err)) return 'retry';
  const s = err.upstreamStatus;
  // gw's own 5xx is retried unless its catalog entry says repeating cannot cure it (a replay's miss)
  if (s === undefined) return err.status >= 500 && err.def?.retry !== false ? 'retry' : 'fail';
  if (s === 408 || s === 429 || s >= 500) return retryAfterMs(err) > MAX_RETRY_AFTER_MS ? 'next' : 'retry';
  return 'fail';
}

/** The upstream's retry-after in ms (seconds or HTTP date), 0 when absent. */
export function retryAfterMs(err: GatewayError): number {
  const v = err.headers?.['retry-after'];
  if (!v) return 0;
  const secs = Number(v);
  if (Number.isFinite(secs)) return Math.max(0, secs * 1000);
  const at = Date.parse(v);
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : 0;
}

/** Backoff before retry `n` (1-based): 250 ms, 500 ms, 1 s… ±20% jitter, or the upstream's retry-after. */
export function backoffMs(n: number, err: unknown): number {
  const ra = err instanceof GatewayError ? retryAfterMs(err) : 0;
  if (ra > 0) return ra;
  const base = 250 * 2 ** (n - 1);
  return Math.round(base * (0.8 + Math.random() * 0.4));
}
