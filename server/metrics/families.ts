/**
 * Lean metric families for the request path: plain numbers in maps keyed by a string the
 * caller has, turned into prom-client's objects only when scraped (`get()`, what
 * AggregatorRegistry collects from each worker). why: docs/benchmarks.md#lean-metric-families
 */
import type { Registry } from 'prom-client';

export type Labels = Record<string, string | number>;

/** One exposed sample, as prom-client's `get()` returns them. */
export interface Value {
  labels: Labels;
  value: number;
  metricName?: string;
}

/**
 * Registers a family whose samples are computed at scrape time by `values`.
 * `aggregator` says how the cluster primary combines workers (sum for counters and histograms).
 */
export function family(registry: Registry, name: string, help: string, type: 'counter' | 'gauge' | 'histogram', values: () => Value[]): void {
  const metric = {
    name,
    help,
    type,
    aggregator: 'sum' as const,
    get: () => ({ name, help, type, aggregator: 'sum' as const, values: values() }),
  };
  registry.registerMetric(metric as unknown as Parameters<Registry['registerMetric']>[0]);
}

/** One histogram series: per-bucket (not cumulative) counts, sum and count. */
export class Histo {
  readonly labels: Labels;
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  private readonly bounds: readonly number[];

  constructor(bounds: readonly number[], labels: Labels) {
    this.bounds = bounds;
    this.labels = labels;
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(v: number): void {
    const b = this.bounds;
    let i = 0;
    while (i < b.length && v > b[i]!) i++;
    this.counts[i]!++;
    this.sum += v;
    this.count++;
  }

  /** The series as Prometheus samples: cumulative `_bucket{le}`, `_sum`, `_count`. */
  values(name: string, out: Value[]): void {
    let acc = 0;
    for (let i = 0; i <= this.bounds.length; i++) {
      acc += this.counts[i]!;
      out.push({ metricName: `${name}_bucket`, labels: { ...this.labels, le: i < this.bounds.length ? this.bounds[i]! : '+Inf' }, value: acc });
    }
    out.push({ metricName: `${name}_sum`, labels: this.labels, value: this.sum });
    out.push({ metricName: `${name}_count`, labels: this.labels, value: this.count });
  }
}

/** Histogram series by a key (a label value the caller has at hand). */
export class HistoMap {
  private readonly series = new Map<string, Histo>();
  private readonly bounds: readonly number[];
  private readonly label: string;

  constructor(label: string, bounds: readonly number[]) {
    this.label = label;
    this.bounds = bounds;
  }

  observe(key: string, v: number): void {
    this.at(key).observe(v);
  }

  /** The series of `key`, made at its first use (callers on the request path keep it). */
  at(key: string): Histo {
    let h = this.series.get(key);
    if (!h) this.series.set(key, (h = new Histo(this.bounds, { [this.label]: key })));
    return h;
  }

  /** Registers the family under `name`. */
  expose(registry: Registry, name: string, help: string): void {
    family(registry, name, help, 'histogram', () => {
      const out: Value[] = [];
      for (const h of this.series.values()) h.values(name, out);
      return out;
    });
  }
}
