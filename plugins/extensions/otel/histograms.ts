/**
 * Explicit-bucket histograms with delta temporality, read by the SDK's metric reader through its
 * MetricProducer interface. A series is found by walking a call site's values in a fixed key
 * order (AttributeLayout): recording a value allocates nothing. Why: docs/benchmarks.md#otel-histograms
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
import { attributeSet } from './span.ts';

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
 * The attribute keys of one call site, in the order it gives their values to
 * `DeltaHistogram.record`; a value given as undefined is an attribute its series lacks.
 * Layouts are told apart by identity: make each once, at module level.
 */
export class AttributeLayout {
  /** At most MAX_KEYS. */
  readonly keys: readonly string[];

  /** @throws RangeError past MAX_KEYS keys. */
  constructor(keys: readonly string[]) {
    if (keys.length > MAX_KEYS) throw new RangeError(`an attribute layout has at most ${MAX_KEYS} keys (got ${keys.length})`);
    this.keys = keys;
  }

  /** The attribute set of these values: each defined one under its key. */
  attributes(values: readonly unknown[]): Attributes {
    const a = attributeSet();
    for (let i = 0; i < this.keys.length; i++) if (values[i] !== undefined) a[this.keys[i]!] = values[i] as Attributes[string];
    return a;
  }
}

/** Attribute values a call site gives at most (the GenAI token-usage series has six). */
export const MAX_KEYS = 6;

/** A series' place: one level per value of its layout, in order. Finding a known series allocates nothing. */
class Node {
  readonly next = new Map<unknown, Node>();
  series: Series | undefined = undefined;

  /** The place below for value `k`, made when `grow` (else undefined when there is none). */
  step(k: unknown, grow: boolean): Node | undefined {
    let n = this.next.get(k);
    if (n === undefined && grow) {
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
  /** One tree per layout recorded with since the last collection. */
  private roots = new Map<AttributeLayout, Node>();
  private series: Series[] = [];
  private overflow: Series | undefined = undefined;

  constructor(name: string, description: string, unit: string, boundaries: readonly number[]) {
    this.name = name;
    this.description = description;
    this.unit = unit;
    this.boundaries = boundaries;
  }

  /**
   * Adds `v` (a finite value ≥ 0; others are ignored) to the series of the attribute values
   * `v0`…`v5`, given in `layout`'s key order (undefined: the series lacks that attribute).
   */
  record(v: number, layout: AttributeLayout, v0?: unknown, v1?: unknown, v2?: unknown, v3?: unknown, v4?: unknown, v5?: unknown): void {
    if (!(v >= 0) || v === Number.POSITIVE_INFINITY) return;
    // at the series limit no new place is made either: values of new series go to the overflow
    // series, and the tree stays the size of the series it holds
    const grow = this.series.length < MAX_SERIES - 1;
    let n = this.roots.get(layout);
    if (n === undefined) this.roots.set(layout, (n = new Node()));
    // positional, not an array: a value recorded allocates nothing
    const k = layout.keys.length;
    let at: Node | undefined = n;
    if (k > 0) at = at.step(v0, grow);
    if (k > 1 && at) at = at.step(v1, grow);
    if (k > 2 && at) at = at.step(v2, grow);
    if (k > 3 && at) at = at.step(v3, grow);
    if (k > 4 && at) at = at.step(v4, grow);
    if (k > 5 && at) at = at.step(v5, grow);
    let s = at?.series;
    if (s === undefined) {
      if (at === undefined || !grow) s = this.overflow ??= this.newSeries(OVERFLOW, v);
      else {
        s = at.series = this.newSeries(layout.attributes([v0, v1, v2, v3, v4, v5]), v);
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
    this.roots = new Map();
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
