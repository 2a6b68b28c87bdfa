/**
 * Provider health over the last 5 and 60 minutes, in this process: attempts and failures by
 * class, latency and TTFB p50/p95 (log-scale bins, ±4.5%), in a ring of minute slots written
 * without allocation. Fed by the router's Member (every attempt) and onFinish (every answer).
 */
import { UPSTREAM_CONNECTION_LOST, UPSTREAM_TIMEOUT, UPSTREAM_UNREACHABLE } from '../http/errors.ts';
import { GatewayError } from '../../core/errors.ts';

const MINUTE = 60_000;
const SLOTS = 60;
/** Histogram bins: bin i holds values up to LOW · 2^((i+1)/STEPS) ms; the last bin holds the rest. */
const BINS = 192;
const STEPS = 8;
const LOW = 0.1;

/** Why an upstream attempt failed, as health counts it. */
export type FailureClass = 'timeout' | 'rate_limited' | 'server_error' | 'connect' | 'other' | 'rejected';

/** Failure counts in a window; `rejected` (upstream 4xx other than 408/429: the request's fault) is not in `error_rate`. */
export type FailureCounts = Record<FailureClass, number>;

/** Health of one provider over one window. */
export interface WindowHealth {
  /** Upstream attempts (retries included). */
  requests: number;
  /** Failed attempts by class, and streams that failed after their first byte. */
  errors: FailureCounts;
  /** (timeout + rate_limited + server_error + connect + other) / requests; 0 without requests. */
  error_rate: number;
  /** Requests this provider answered (the latency samples). */
  served: number;
  /** Arrival to last byte of the answered requests, ms; null without samples. */
  latency_ms: { p50: number; p95: number } | null;
  /** Arrival to first byte (streams), = latency for JSON answers, ms; null without samples. */
  ttfb_ms: { p50: number; p95: number } | null;
}

/** One minute of a provider's history (for charts). */
export interface MinuteHealth {
  /** Minute start, RFC 3339. */
  start: string;
  requests: number;
  errors: number;
  served: number;
  latency_p50_ms: number | null;
  latency_p95_ms: number | null;
  ttfb_p50_ms: number | null;
  ttfb_p95_ms: number | null;
}

/** What the provider listing shows. */
export interface HealthReport {
  last_5m: WindowHealth;
  last_60m: WindowHealth;
  /** The minutes of the last hour that saw traffic, oldest first. */
  minutes: MinuteHealth[];
}

class Slot {
  /** Minute number (epoch ms / 60 000) this slot holds; -1 = unused. */
  minute = -1;
  requests = 0;
  readonly errors: FailureCounts = { timeout: 0, rate_limited: 0, server_error: 0, connect: 0, other: 0, rejected: 0 };
  served = 0;
  latency: Uint32Array | undefined = undefined;
  ttfb: Uint32Array | undefined = undefined;

  reset(minute: number): void {
    this.minute = minute;
    this.requests = 0;
    this.served = 0;
    const e = this.errors;
    e.timeout = e.rate_limited = e.server_error = e.connect = e.other = e.rejected = 0;
    this.latency?.fill(0);
    this.ttfb?.fill(0);
  }
}

/** Histogram bin of a duration in ms. */
function bin(ms: number): number {
  if (!(ms > LOW)) return 0;
  const i = Math.floor(Math.log2(ms / LOW) * STEPS);
  return i >= BINS ? BINS - 1 : i;
}

/** The value a bin stands for: the geometric middle of its bounds, ms (2 significant decimals below 10 ms). */
function binValue(i: number): number {
  const v = LOW * 2 ** ((i + 0.5) / STEPS);
  return v < 10 ? Math.round(v * 100) / 100 : Math.round(v);
}

/** p50 and p95 of merged histograms; null when empty. */
function percentiles(hists: Array<Uint32Array | undefined>): { p50: number; p95: number } | null {
  let total = 0;
  for (const h of hists) if (h) for (let i = 0; i < BINS; i++) total += h[i]!;
  if (total === 0) return null;
  const want = [Math.ceil(total * 0.5), Math.ceil(total * 0.95)];
  const out: number[] = [];
  let acc = 0;
  for (let i = 0; i < BINS && out.length < 2; i++) {
    for (const h of hists) if (h) acc += h[i]!;
    while (out.length < 2 && acc >= want[out.length]!) out.push(binValue(i));
  }
  return { p50: out[0]!, p95: out[1]! };
}

/** The class of a failed attempt: `timeout`, `rate_limited`, `server_error`, `connect`, `rejected` (other 4xx) or `other`. */
export function failureClass(err: unknown): FailureClass {
  if (!(err instanceof GatewayError)) return 'other';
  const s = err.upstreamStatus;
  if (s === 429) return 'rate_limited';
  if (s === 408 || UPSTREAM_TIMEOUT.is(err) || (s === undefined && err.status === 504)) return 'timeout';
  if (s !== undefined) return s >= 500 ? 'server_error' : 'rejected';
  if (UPSTREAM_UNREACHABLE.is(err) || UPSTREAM_CONNECTION_LOST.is(err)) return 'connect';
  return 'other';
}

/** One provider's recent health. */
export class ProviderHealth {
  private readonly slots: Slot[] = Array.from({ length: SLOTS }, () => new Slot());

  private slot(now: number): Slot {
    const minute = Math.floor(now / MINUTE);
    const s = this.slots[minute % SLOTS]!;
    if (s.minute !== minute) s.reset(minute);
    return s;
  }

  /** An upstream attempt ended: `err` undefined when it succeeded. */
  attempt(err?: unknown, now = Date.now()): void {
    const s = this.slot(now);
    s.requests++;
    if (err !== undefined) s.errors[failureClass(err)]++;
  }

  /** A stream this provider was serving failed after its first byte (no new attempt). */
  streamFailed(err: unknown, now = Date.now()): void {
    this.slot(now).errors[failureClass(err)]++;
  }

  /** A request this provider answered: arrival to last byte and to first byte, ms. */
  served(latencyMs: number, ttfbMs: number, now = Date.now()): void {
    const s = this.slot(now);
    s.served++;
    (s.latency ??= new Uint32Array(BINS))[bin(latencyMs)]!++;
    (s.ttfb ??= new Uint32Array(BINS))[bin(ttfbMs)]!++;
  }

  /** The last 5 and 60 minutes (the current minute included) and the per-minute history. */
  report(now = Date.now()): HealthReport {
    const minute = Math.floor(now / MINUTE);
    const live = this.slots.filter((s) => s.minute > minute - SLOTS && s.minute <= minute).sort((a, b) => a.minute - b.minute);
    return {
      last_5m: windowOf(live.filter((s) => s.minute > minute - 5)),
      last_60m: windowOf(live),
      minutes: live
        .filter((s) => s.requests > 0 || s.served > 0 || errorsOf(s) > 0)
        .map((s) => {
          const lat = percentiles([s.latency]);
          const ttfb = percentiles([s.ttfb]);
          return {
            start: new Date(s.minute * MINUTE).toISOString(),
            requests: s.requests,
            errors: errorsOf(s),
            served: s.served,
            latency_p50_ms: lat?.p50 ?? null,
            latency_p95_ms: lat?.p95 ?? null,
            ttfb_p50_ms: ttfb?.p50 ?? null,
            ttfb_p95_ms: ttfb?.p95 ?? null,
          };
        }),
    };
  }
}

function errorsOf(s: Slot): number {
  const e = s.errors;
  return e.timeout + e.rate_limited + e.server_error + e.connect + e.other;
}

function windowOf(slots: Slot[]): WindowHealth {
  const errors: FailureCounts = { timeout: 0, rate_limited: 0, server_error: 0, connect: 0, other: 0, rejected: 0 };
  let requests = 0;
  let served = 0;
  let failed = 0;
  for (const s of slots) {
    requests += s.requests;
    served += s.served;
    failed += errorsOf(s);
    for (const k in errors) errors[k as FailureClass] += s.errors[k as FailureClass];
  }
  return {
    requests,
    errors,
    error_rate: requests ? Math.round((Math.min(failed, requests) / requests) * 10_000) / 10_000 : 0,
    served,
    latency_ms: percentiles(slots.map((s) => s.latency)),
    ttfb_ms: percentiles(slots.map((s) => s.ttfb)),
  };
}
