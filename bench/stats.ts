/**
 * Latency samples with sub-millisecond precision (autocannon's own histogram keeps whole
 * ms, too coarse for a 0.2 ms budget), and percentiles over them.
 */

/** A growable buffer of float samples (ms). */
export class Samples {
  private buf = new Float64Array(4096);
  length = 0;

  push(v: number): void {
    if (this.length === this.buf.length) {
      const next = new Float64Array(this.buf.length * 2);
      next.set(this.buf);
      this.buf = next;
    }
    this.buf[this.length++] = v;
  }

  /** The samples sorted ascending (a copy). */
  sorted(): Float64Array {
    return this.buf.slice(0, this.length).sort();
  }
}

/** Percentile `p` (0–100) of ascending `sorted` by the nearest-rank method; NaN when empty. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  const rank = Math.ceil((p / 100) * n);
  return sorted[Math.min(n - 1, Math.max(0, rank - 1))]!;
}

/** p50, p99 and mean of a sample set, ms. */
export function summarize(s: Samples): { p50: number; p99: number; mean: number } {
  const sorted = s.sorted();
  let sum = 0;
  for (let i = 0; i < sorted.length; i++) sum += sorted[i]!;
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), mean: sorted.length ? sum / sorted.length : NaN };
}
