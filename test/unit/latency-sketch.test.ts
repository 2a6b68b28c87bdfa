/**
 * Latency sketches (plugins/extensions/usage/latency.ts) kept as bucket counters: two gw
 * instances writing to one Redis merge into the sketch one process would have built from
 * every sample, and its p95 is within the sketch's 1% relative accuracy of the true p95.
 */
import test from 'ava';
import { DDSketch } from '@datadog/sketches-js';
import { readSeries, type SeriesQuery } from '../../sdk/series.ts';
import type { FinishedRequest, GatewayInfo } from 'gw/plugin';
import { openRedisStore } from '../../plugins/stores/redis/redis.ts';
import {
  LATENCY_HOURS_KEY,
  LATENCY_MINUTES_KEY,
  LATENCY_SHAPE,
  LatencyRecorder,
  MINUTE_MS,
  RELATIVE_ACCURACY,
  sketchOf,
  binsOf,
} from '../../plugins/extensions/usage/latency.ts';
import { redisFor } from '../helpers/redis.ts';

const HOUR = 3_600_000;
/**
 * Minute buckets live hours after they end (store TTLs run on real time): the samples are taken
 * in the current minute, at its start, so that instance B's clock (1 s ahead) is in the same
 * minute. Taken at Date.now() the test failed whenever it ran in a minute's last second.
 */
const STARTED = Date.now();
const NOW = STARTED - (STARTED % MINUTE_MS);

/** A finished, answered request of `ms` total (a stream when `ttfb` is given). */
function finished(model: string, ms: number, ttfb?: number): FinishedRequest {
  const rc = { provider: 'up', servedModel: model, cacheHit: false, stream: ttfb !== undefined, attempts: 1, upstreamMs: ms * 0.9 };
  return { status: 200, totalMs: ms, ttfbMs: ttfb ?? ms, rc } as unknown as FinishedRequest;
}

/** Deterministic log-normal-ish samples (a PRNG, so a failure reproduces). */
function samples(n: number, seed: number): number[] {
  let s = seed;
  const rnd = () => ((s = (s * 1103515245 + 12345) % 2 ** 31) + 1) / (2 ** 31 + 1);
  return Array.from({ length: n }, () => Math.exp(5 + 1.2 * Math.sqrt(-2 * Math.log(rnd())) * Math.cos(2 * Math.PI * rnd())));
}

const exactQuantile = (sorted: number[], q: number) => sorted[Math.floor(q * (sorted.length - 1))]!;

test('bins round-trip: a sketch rebuilt from its bucket counters answers every quantile as the original', (t) => {
  const s = new DDSketch({ relativeAccuracy: RELATIVE_ACCURACY });
  for (const v of [0, 0, 0.2, 1, 3, 50, 900, 12_000, ...samples(500, 7)]) s.accept(v);
  const counters: Record<string, number> = {};
  binsOf('l', s, counters);
  const r = sketchOf('l', counters);
  t.is(r.count, s.count);
  for (const q of [0, 0.01, 0.5, 0.95, 0.99, 1]) t.is(r.getValueAtQuantile(q), s.getValueAtQuantile(q));
});

test('two instances on Redis merge into the same p50/p95/p99 as one process given every sample, within 1% of the exact value', async (t) => {
  const redis = await redisFor(t);
  if (!redis) return;
  const url = `redis://127.0.0.1:${redis.port}/0`;
  const [a, b, reader] = await Promise.all([openRedisStore(url), openRedisStore(url), openRedisStore(url)]);
  t.teardown(() => Promise.all([a.close(), b.close(), reader.close()]).then(() => undefined));
  const hours = { bucketMs: HOUR, retentionMs: 90 * 24 * HOUR };
  const fail = (err: Error) => t.fail(err.message);
  const recA = new LatencyRecorder(a.namespace('usage'), hours, 6 * HOUR, () => NOW, fail);
  const recB = new LatencyRecorder(b.namespace('usage'), hours, 6 * HOUR, () => NOW + 1000, fail);
  const all = samples(4000, 42);
  const one = new DDSketch({ relativeAccuracy: RELATIVE_ACCURACY });
  all.forEach((v, i) => {
    (i % 2 ? recA : recB).observe(finished('m', v, v / 3));
    one.accept(v);
  });
  // a second flush of more samples adds into the same counters
  await Promise.all([recA.flush(), recB.flush()]);
  const extra = samples(1000, 9);
  for (const v of extra) {
    recA.observe(finished('m', v));
    one.accept(v);
  }
  await Promise.all([recA.close(), recB.close()]);

  const gateway = { keyTags: () => undefined } as unknown as GatewayInfo;
  const sorted = [...all, ...extra].sort((x, y) => x - y);
  for (const [bucket, key, bucketMs] of [
    ['hour', LATENCY_HOURS_KEY, HOUR],
    ['minute', LATENCY_MINUTES_KEY, MINUTE_MS],
  ] as const) {
    const q: SeriesQuery = { bucket, groupBy: ['model'], from: NOW - HOUR, to: NOW + HOUR };
    const rows = await readSeries(reader.namespace('usage'), q, LATENCY_SHAPE, gateway, { key, bucketMs });
    t.is(rows.length, 1, bucket);
    const row = rows[0] as Record<string, number>;
    t.is(row.requests, sorted.length);
    t.is(row.streams, all.length);
    for (const [p, name] of [
      [0.5, 'latency_p50_ms'],
      [0.95, 'latency_p95_ms'],
      [0.99, 'latency_p99_ms'],
    ] as const) {
      // the merged sketch is the one-process sketch (bin counts add exactly), up to the 2-decimal rounding
      t.is(row[name], Math.round(one.getValueAtQuantile(p) * 100) / 100, `${bucket} ${name}`);
      const exact = exactQuantile(sorted, p);
      t.true(Math.abs(row[name]! - exact) <= exact * RELATIVE_ACCURACY + 0.01, `${bucket} ${name}: ${row[name]} vs exact ${exact}`);
    }
  }
});
