/**
 * gw's trace and span ids (plugins/extensions/otel/ids.ts) against the SDK's
 * RandomIdGenerator: given the same Math.random draws, the same ids, all-zero draws included;
 * and the root sampler (telemetry.ts) at ratios 1, 0 and between decides as the SDK's ratio
 * sampler does.
 */
import { ROOT_CONTEXT, SpanKind } from '@opentelemetry/api';
import { RandomIdGenerator, SamplingDecision, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace';
import test from 'ava';
import { HexIdGenerator } from '../../plugins/extensions/otel/ids.ts';
import { rootSampler } from '../../plugins/extensions/otel/telemetry.ts';

/** Runs `fn` with Math.random returning `draws` in turn (then throwing: a draw too many is a bug). */
function withDraws<T>(draws: number[], fn: () => T): T {
  const real = Math.random;
  let i = 0;
  Math.random = () => {
    if (i >= draws.length) throw new Error('more draws than given');
    return draws[i++]!;
  };
  try {
    return fn();
  } finally {
    Math.random = real;
  }
}

/** A seeded PRNG's draws in [0, 1), edges included. */
function draws(n: number, seed: number): number[] {
  let s = seed;
  const out = [0, 0.999_999_999_9, 0.5, 1 / 4294967296];
  while (out.length < n) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    out.push(s / 2 ** 31);
  }
  return out;
}

test('the same draws give the SDK generator’s ids, byte for byte', (t) => {
  const ours = new HexIdGenerator();
  const sdk = new RandomIdGenerator();
  const d = draws(4000, 7);
  for (let i = 0; i + 4 <= d.length; i += 4) {
    const four = d.slice(i, i + 4);
    t.is(
      withDraws(four, () => ours.generateTraceId()),
      withDraws(four, () => sdk.generateTraceId()),
    );
    const two = d.slice(i, i + 2);
    t.is(
      withDraws(two, () => ours.generateSpanId()),
      withDraws(two, () => sdk.generateSpanId()),
    );
  }
});

test('an all-zero draw still gives a valid id, the SDK’s', (t) => {
  const ours = new HexIdGenerator();
  const trace = withDraws([0, 0, 0, 0], () => ours.generateTraceId());
  const span = withDraws([0, 0], () => ours.generateSpanId());
  t.is(trace, `${'0'.repeat(31)}1`);
  t.is(span, `${'0'.repeat(15)}1`);
  const sdk = new RandomIdGenerator();
  t.is(
    trace,
    withDraws([0, 0, 0, 0], () => sdk.generateTraceId()),
  );
  t.is(
    span,
    withDraws([0, 0], () => sdk.generateSpanId()),
  );
});

test('ids from the real Math.random: lower-case hex of the right length, every digit in every place', (t) => {
  const ids = new HexIdGenerator();
  const seen = Array.from({ length: 32 }, () => new Set<string>());
  const distinct = new Set<string>();
  for (let i = 0; i < 5000; i++) {
    const id = ids.generateTraceId();
    t.regex(id, /^[0-9a-f]{32}$/);
    for (let p = 0; p < 32; p++) seen[p]!.add(id[p]!);
    distinct.add(id);
    t.regex(ids.generateSpanId(), /^[0-9a-f]{16}$/);
  }
  t.is(distinct.size, 5000);
  // 5,000 draws leave a digit out of a place with probability about 16 · (15/16)^5000
  t.deepEqual(
    seen.map((s) => s.size),
    Array(32).fill(16),
  );
});

test('the root sampler at 1, 0 and 0.25 decides as the SDK’s ratio sampler', (t) => {
  const ids = new HexIdGenerator();
  for (const ratio of [1, 0, 0.25, 1.5, -1]) {
    const ours = rootSampler(ratio);
    const sdk = new TraceIdRatioBasedSampler(ratio);
    let sampled = 0;
    for (let i = 0; i < 2000; i++) {
      const id = ids.generateTraceId();
      const a = ours.shouldSample(ROOT_CONTEXT, id, 'n', SpanKind.SERVER, {}, []).decision;
      t.is(a, sdk.shouldSample(ROOT_CONTEXT, id).decision, `ratio ${ratio}, ${id}`);
      if (a === SamplingDecision.RECORD_AND_SAMPLED) sampled++;
    }
    t.log(`ratio ${ratio}: ${sampled} of 2000 sampled`);
  }
});
