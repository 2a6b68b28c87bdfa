/**
 * Provider health (lib/resilience/health.ts): failure classes, the 5- and 60-minute
 * windows, percentiles within the histogram's resolution, and minute slots reused after an hour.
 */
import test from 'ava';
import { UPSTREAM_CONNECTION_LOST, UPSTREAM_MALFORMED, UPSTREAM_TIMEOUT, UPSTREAM_UNREACHABLE } from '../../lib/http/errors.ts';
import { GatewayError } from '../../core/errors.ts';
import { failureClass, ProviderHealth } from '../../lib/resilience/health.ts';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const MIN = 60_000;
const upstream = (status: number) => new GatewayError(status >= 500 ? 502 : status, 'x', { upstreamStatus: status });

test('failure classes: timeout, 429, 5xx, connect, other; other 4xx are rejected (the request’s fault)', (t) => {
  t.is(failureClass(UPSTREAM_TIMEOUT({ provider: 'p', seconds: 1, url: 'u' })), 'timeout');
  t.is(failureClass(upstream(408)), 'timeout');
  t.is(failureClass(upstream(429)), 'rate_limited');
  t.is(failureClass(upstream(500)), 'server_error');
  t.is(failureClass(upstream(529)), 'server_error');
  t.is(failureClass(UPSTREAM_UNREACHABLE({ provider: 'p', reason: 'ECONNREFUSED', url: 'u' })), 'connect');
  t.is(failureClass(UPSTREAM_CONNECTION_LOST({ provider: 'p', reason: 'ECONNRESET' })), 'connect');
  t.is(failureClass(UPSTREAM_MALFORMED({ provider: 'p', what: 'junk' })), 'other');
  t.is(failureClass(upstream(400)), 'rejected');
  t.is(failureClass(upstream(401)), 'rejected');
  t.is(failureClass(new Error('bug')), 'other');
});

test('windows: the last 5 minutes and the last 60, error rate without rejected, minutes with traffic only', (t) => {
  const h = new ProviderHealth();
  h.attempt(undefined, T0 - 30 * MIN); // in the hour, not in the 5 minutes
  h.attempt(upstream(500), T0 - 30 * MIN);
  h.attempt(undefined, T0 - 61 * MIN); // older than the hour
  h.attempt(undefined, T0 - 2 * MIN);
  h.attempt(upstream(429), T0 - 2 * MIN);
  h.attempt(upstream(400), T0);
  h.attempt(UPSTREAM_TIMEOUT({ provider: 'p', seconds: 1, url: 'u' }), T0);
  h.streamFailed(UPSTREAM_CONNECTION_LOST({ provider: 'p', reason: 'ECONNRESET' }), T0);
  const r = h.report(T0 + 1000);
  t.like(r.last_5m, { requests: 4, errors: { timeout: 1, rate_limited: 1, server_error: 0, connect: 1, other: 0, rejected: 1 }, error_rate: 0.75 });
  t.like(r.last_60m, { requests: 6, errors: { server_error: 1, rejected: 1 } });
  t.is(r.last_60m.error_rate, Math.round((4 / 6) * 10_000) / 10_000);
  t.deepEqual(
    r.minutes.map((m) => [m.start, m.requests, m.errors]),
    [
      [new Date(T0 - 30 * MIN).toISOString(), 2, 1],
      [new Date(T0 - 2 * MIN).toISOString(), 2, 1],
      [new Date(T0).toISOString(), 2, 2],
    ],
  );
  t.deepEqual(new ProviderHealth().report(T0).last_5m, {
    requests: 0,
    errors: { timeout: 0, rate_limited: 0, server_error: 0, connect: 0, other: 0, rejected: 0 },
    error_rate: 0,
    served: 0,
    latency_ms: null,
    ttfb_ms: null,
  });
});

test('percentiles: p50 and p95 within ±5% of the exact sample values; per minute too', (t) => {
  const h = new ProviderHealth();
  const samples = Array.from({ length: 1000 }, (_, i) => 20 + i * 0.98); // 20 .. ~999 ms
  for (const [i, ms] of samples.entries()) h.served(ms, ms / 4, T0 + (i % 3) * MIN);
  const exact = (q: number) => samples[Math.ceil(samples.length * q) - 1]!;
  const r = h.report(T0 + 3 * MIN);
  t.is(r.last_5m.served, 1000);
  const near = (got: number, want: number) => t.true(Math.abs(got - want) / want < 0.05, `${got} vs ${want}`);
  near(r.last_5m.latency_ms!.p50, exact(0.5));
  near(r.last_5m.latency_ms!.p95, exact(0.95));
  near(r.last_5m.ttfb_ms!.p95, exact(0.95) / 4);
  t.is(r.minutes.length, 3);
  t.true(r.minutes.every((m) => m.latency_p50_ms! > 20 && m.latency_p95_ms! < 1050 && m.served > 300));
  // sub-millisecond and beyond-range values land in the edge bins, never out of range
  h.served(0, 0, T0);
  h.served(1e9, 1e9, T0);
  t.truthy(h.report(T0).last_5m.latency_ms);
});

test('a minute slot is reused an hour later: old counts never leak into the new minute', (t) => {
  const h = new ProviderHealth();
  h.attempt(upstream(500), T0);
  h.served(100, 50, T0);
  const later = T0 + 60 * MIN; // same slot index, next hour
  h.attempt(undefined, later);
  const r = h.report(later);
  t.like(r.last_5m, { requests: 1, served: 0, error_rate: 0, latency_ms: null });
  t.is(r.last_60m.requests, 1);
});
