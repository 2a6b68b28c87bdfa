/**
 * Explicit-bucket histograms with delta temporality, aggregated by gw and read by the SDK's
 * metric reader through its MetricProducer interface, so the SDK's periodic reader and OTLP
 * exporters send them as they send their own instruments'.
 *
 * Why not the SDK's Histogram: its `record` sorts and JSON-encodes the attributes on every
 * call to find their series (1.5 KB of garbage and a few µs per value, four values per
 * request). gw knows the order it builds its attributes in, so a series is found by
 * walking its keys and values in that order.
 */
import { type Attributes, type HrTime, ValueType } from '@opentelemetry/api';
import { millisToHrTime } from '@opentelemetry/core';
import {
  AggregationTemporality,
  type CollectionResult,
  type DataPoint,
  DataPointType,
  type Histogram as HistogramValue,
  type HistogramMetricData,
  type MetricProducer,
} from '@opentelemetry/sdk-metrics';

/** One series: the values recorded with one attribute set since the last collection. */
interface Series {
  readonly attributes: Attributes;
  /** counts[i]: values in (boundaries[i-1], boundaries[i]]; the last, values above every boundary. */
  readonly counts: number[];
  count: number;
  sum: number;
  min: number;
  max: number;
}

/** Series per instrument per collection at most, as the SDK's default cardinality limit; past it values go to one overflow series. */
export const MAX_SERIES = 2000;
const OVERFLOW: Attributes = Object.freeze({ 'otel.metric.overflow': true }) as Attributes;

/**
 * A series' place: one level per attribute key, then one per its value, in the order the
 * attributes were built. Finding a known series allocates nothing.
 */
class Node {
  readonly next = new Map<unknown, Node>();
  series: Series | undefined = undefined;

  child(k: unknown): Node {
    let n = this.next.get(k);
    if (n === undefined) {
      n = new Node();
      this.next.set(k, n);
    }
    return n;
  }
}

/** One instrument. */
export class DeltaHistogram {
  readonly name: string;
  private readonly description: string;
  private readonly unit: string;
  private readonly boundaries: readonly number[];
  private root = new Node();
  private series: Series[] = [];
  private overflow: Series | undefined = undefined;

  constructor(name: string, description: string, unit: string, boundaries: readonly number[]) {
    this.name = name;
    this.description = description;
    this.unit = unit;
    this.boundaries = boundaries;
  }

  /**
   * Adds `v` to the series of `a` (a finite value ≥ 0; others are ignored). `a` is kept as
   * the series' attributes when it is new: the caller hands over an object it built, whose
   * keys come in the same order for the same instrument call site.
   */
  record(v: number, a: Attributes): void {
    if (!(v >= 0) || v === Number.POSITIVE_INFINITY) return;
    let n = this.root;
    for (const k in a) n = n.child(k).child(a[k]);
    let s = n.series;
    if (s === undefined) {
      if (this.series.length >= MAX_SERIES - 1) s = this.overflow ??= this.newSeries(OVERFLOW, v);
      else {
        s = n.series = this.newSeries(a, v);
        this.series.push(s);
      }
    }
    const b = this.boundaries;
    let i = 0;
    while (i < b.length && v > b[i]!) i++;
    s.counts[i]!++;
    s.count++;
    s.sum += v;
    if (v < s.min) s.min = v;
    if (v > s.max) s.max = v;
  }

  private newSeries(attributes: Attributes, v: number): Series {
    return { attributes, counts: new Array<number>(this.boundaries.length + 1).fill(0), count: 0, sum: 0, min: v, max: v };
  }

  /** The series recorded since the last call, as OTLP data, and a fresh start. */
  take(start: HrTime, end: HrTime): HistogramMetricData | undefined {
    const taken = this.series;
    if (this.overflow !== undefined) taken.push(this.overflow);
    if (taken.length === 0) return undefined;
    this.root = new Node();
    this.series = [];
    this.overflow = undefined;
    const dataPoints: DataPoint<HistogramValue>[] = [];
    for (const s of taken)
      dataPoints.push({
        startTime: start,
        endTime: end,
        attributes: s.attributes,
        value: { buckets: { boundaries: this.boundaries as number[], counts: s.counts }, count: s.count, sum: s.sum, min: s.min, max: s.max },
      });
    return {
      descriptor: { name: this.name, description: this.description, unit: this.unit, valueType: ValueType.DOUBLE },
      aggregationTemporality: AggregationTemporality.DELTA,
      dataPointType: DataPointType.HISTOGRAM,
      dataPoints,
    };
  }
}

/** The histograms of one scope as a MetricProducer: each collection takes what was recorded since the last. */
export class HistogramProducer implements MetricProducer {
  private readonly histograms: readonly DeltaHistogram[];
  private readonly scope: { name: string; version: string };
  private since: HrTime = millisToHrTime(Date.now());

  constructor(scope: { name: string; version: string }, histograms: readonly DeltaHistogram[]) {
    this.scope = scope;
    this.histograms = histograms;
  }

  async collect(): Promise<CollectionResult> {
    const end = millisToHrTime(Date.now());
    const metrics: HistogramMetricData[] = [];
    for (const h of this.histograms) {
      const m = h.take(this.since, end);
      if (m !== undefined) metrics.push(m);
    }
    this.since = end;
    // the reader keeps the meter provider's resource and uses only the scope metrics of a producer
    return { resourceMetrics: { resource: undefined as never, scopeMetrics: metrics.length ? [{ scope: this.scope, metrics }] : [] }, errors: [] };
  }
}
