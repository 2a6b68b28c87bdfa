/**
 * The otel extension's own histograms (plugins/extensions/otel/histograms.ts): explicit
 * buckets with upper-inclusive bounds as OTLP defines them, one series per attribute set,
 * delta temporality (a collection takes what was recorded since the last one), series found
 * by their values in a call site's key order (AttributeLayout), a capped
 * number of series, and the producer's output as the SDK's metric reader merges it.
 */
import { ValueType } from '@opentelemetry/api';
import { AggregationTemporality, DataPointType } from '@opentelemetry/sdk-metrics';
import test from 'ava';
import { AttributeLayout, DeltaHistogram, HistogramProducer, MAX_KEYS, MAX_SERIES } from '../../plugins/extensions/otel/histograms.ts';

const T0: [number, number] = [1, 0];
const T1: [number, number] = [2, 0];
const NONE = new AttributeLayout([]);
const OP = new AttributeLayout(['op']);

/** A series' attributes as a plain object (gw builds them as objects of a class of its own). */
function plain(a: object): Record<string, unknown> {
  return { ...a };
}

test('a value lands in the first bucket whose bound it does not exceed; count, sum, min and max follow', (t) => {
  const h = new DeltaHistogram('d', 'a duration', 's', [1, 2, 4]);
  for (const v of [0, 1, 1.5, 2, 3, 4, 9]) h.record(v, OP, 'chat');
  const m = h.take(T0, T1)!;
  t.is(m.dataPointType, DataPointType.HISTOGRAM);
  t.is(m.aggregationTemporality, AggregationTemporality.DELTA);
  t.deepEqual(m.descriptor, { name: 'd', description: 'a duration', unit: 's', valueType: ValueType.DOUBLE });
  t.is(m.dataPoints.length, 1);
  const p = m.dataPoints[0]!;
  t.deepEqual(p.value.buckets, { boundaries: [1, 2, 4], counts: [2, 2, 2, 1] });
  t.deepEqual([p.value.count, p.value.sum, p.value.min, p.value.max], [7, 20.5, 0, 9]);
  t.deepEqual([p.startTime, p.endTime, plain(p.attributes)], [T0, T1, { op: 'chat' }]);
});

test('each set of values is a series of its own; an undefined value is an attribute the series lacks', (t) => {
  const h = new DeltaHistogram('d', '', 's', [1]);
  const L = new AttributeLayout(['op', 'model', 'error.type']);
  h.record(1, L, 'chat', 'a');
  h.record(2, L, 'chat', 'a');
  h.record(3, L, 'chat', 'b');
  h.record(4, L, 'chat', undefined, 'a');
  const points = h.take(T0, T1)!.dataPoints.map((p) => [plain(p.attributes), p.value.count, p.value.sum]);
  t.deepEqual(points, [
    [{ op: 'chat', model: 'a' }, 2, 3],
    [{ op: 'chat', model: 'b' }, 1, 3],
    [{ op: 'chat', 'error.type': 'a' }, 1, 4],
  ]);
});

test('the same values under another layout are another series, under its keys', (t) => {
  const h = new DeltaHistogram('d', '', 's', [1]);
  h.record(1, new AttributeLayout(['op', 'model']), 'chat', 'a');
  h.record(1, new AttributeLayout(['op', 'provider']), 'chat', 'a');
  const points = h.take(T0, T1)!.dataPoints.map((p) => plain(p.attributes));
  t.deepEqual(points, [
    { op: 'chat', model: 'a' },
    { op: 'chat', provider: 'a' },
  ]);
});

test(`a layout takes at most ${MAX_KEYS} keys, the sixth value included`, (t) => {
  const keys = ['a', 'b', 'c', 'd', 'e', 'f'];
  t.is(keys.length, MAX_KEYS);
  const h = new DeltaHistogram('d', '', 's', [1]);
  h.record(1, new AttributeLayout(keys), 1, 2, 3, 4, 5, 6);
  t.deepEqual(plain(h.take(T0, T1)!.dataPoints[0]!.attributes), { a: 1, b: 2, c: 3, d: 4, e: 5, f: 6 });
  t.throws(() => new AttributeLayout([...keys, 'g']), { instanceOf: RangeError, message: /at most 6 keys \(got 7\)/ });
});

test('negative, NaN and infinite values are not recorded', (t) => {
  const h = new DeltaHistogram('d', '', 's', [1]);
  for (const v of [-1, Number.NaN, Number.POSITIVE_INFINITY, undefined as unknown as number]) h.record(v, NONE);
  t.is(h.take(T0, T1), undefined);
});

test('a collection takes what was recorded since the last one', (t) => {
  const h = new DeltaHistogram('d', '', 's', [1]);
  const A = new AttributeLayout(['a']);
  h.record(0.5, A, 1);
  t.is(h.take(T0, T1)!.dataPoints[0]!.value.count, 1);
  t.is(h.take(T1, T1), undefined);
  h.record(2, A, 1);
  t.deepEqual(h.take(T1, T1)!.dataPoints[0]!.value.buckets.counts, [0, 1]);
});

test(`past ${MAX_SERIES} series a collection's further attribute sets share one overflow series`, (t) => {
  const h = new DeltaHistogram('d', '', 's', [1]);
  const MODEL = new AttributeLayout(['model']);
  for (let i = 0; i < MAX_SERIES + 10; i++) h.record(1, MODEL, `m${i}`);
  const points = h.take(T0, T1)!.dataPoints;
  t.is(points.length, MAX_SERIES);
  const overflow = points.find((p) => p.attributes['otel.metric.overflow'] === true)!;
  t.is(overflow.value.count, 11);
  t.is(
    points.reduce((n, p) => n + p.value.count, 0),
    MAX_SERIES + 10,
  );
});

test('the producer hands the reader one scope with every instrument that recorded, start to end times chained', async (t) => {
  const a = new DeltaHistogram('a', '', 's', [1]);
  const b = new DeltaHistogram('b', '', '{token}', [1]);
  const p = new HistogramProducer({ name: 'gw', version: '1' }, [a, b]);
  t.deepEqual((await p.collect()).resourceMetrics.scopeMetrics, []);
  a.record(1, NONE);
  const first = await p.collect();
  t.deepEqual(first.errors, []);
  const [scope] = first.resourceMetrics.scopeMetrics;
  t.deepEqual(scope!.scope, { name: 'gw', version: '1' });
  t.deepEqual(
    scope!.metrics.map((m) => m.descriptor.name),
    ['a'],
  );
  b.record(1, NONE);
  const second = (await p.collect()).resourceMetrics.scopeMetrics[0]!.metrics[0]!;
  t.is(second.descriptor.name, 'b');
  t.deepEqual(second.dataPoints[0]!.startTime, scope!.metrics[0]!.dataPoints[0]!.endTime);
});
