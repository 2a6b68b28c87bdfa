/**
 * Counts every span on its way out and keeps the last ones exported for the console. It sits
 * twice in the pipeline: `front`, the processor an ended span goes to (span.ts), in front of the
 * batch processor; and as the batch processor's exporter, in front of the OTLP exporter.
 *
 *   span ended ─▶ front ─▶ BatchSpanProcessor (queue ≤ max) ─▶ this.export ─▶ OTLP exporter
 *                   │ queue full: dropped (queue_full)              │ failed/timed out: dropped (export_failed)
 *
 * The batch processor takes spans off its queue synchronously as it hands them to the
 * exporter, so the queue holds exactly `queued()` = entered − handed: a span that finds it at
 * `maxQueue` is the one the processor drops.
 *
 * The console's list of recent spans takes at most RECENT_TRACES_PER_SECOND new traces a
 * second (`admitRecent`, asked once per trace). Why: docs/benchmarks.md#otel-recent
 */
import { TraceFlags } from '@opentelemetry/api';
import { type ExportResult, ExportResultCode } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace';

/** New traces a second that enter the recent list (the console's trace view). */
export const RECENT_TRACES_PER_SECOND = 20;

export class SpanAccount implements SpanExporter {
  /** Sampled spans that entered the queue. */
  private entered = 0;
  /** Spans handed to the OTLP exporter. */
  private handed = 0;
  /** Spans the collector accepted. */
  exported = 0;
  /** Spans dropped because the queue was full. */
  droppedQueueFull = 0;
  /** Spans in exports that failed or timed out. */
  droppedExportFailed = 0;
  /** The processor ended spans go to; set by `watch`. */
  front: SpanProcessor = NOOP;
  private readonly inner: SpanExporter;
  private readonly maxQueue: number;
  /** Ring of the last exported spans (console), oldest overwritten. */
  private readonly ring: (ReadableSpan | undefined)[];
  private next = 0;
  /** Spans of admitted traces, kept in the ring once exported. */
  private readonly marked = new WeakSet<object>();
  /** The second (epoch s) `admitted` counts, and the traces admitted in it. */
  private second = 0;
  private admitted = 0;

  constructor(inner: SpanExporter, maxQueue: number, keep: number) {
    this.inner = inner;
    this.maxQueue = maxQueue;
    this.ring = new Array(keep);
  }

  /** Puts the counting processor in front of `batch`. */
  watch(batch: SpanProcessor): void {
    this.front = {
      onStart: (span, ctx) => batch.onStart(span, ctx),
      onEnd: (span) => {
        if ((span.spanContext().traceFlags & TraceFlags.SAMPLED) !== 0) {
          if (this.entered - this.handed >= this.maxQueue) this.droppedQueueFull++;
          else this.entered++;
        }
        batch.onEnd(span);
      },
      forceFlush: () => batch.forceFlush(),
      shutdown: () => batch.shutdown(),
    };
  }

  /**
   * Whether a new trace goes to the recent list: at most RECENT_TRACES_PER_SECOND a second,
   * none when the list is off (`recent_spans = 0`). `now`: epoch ms.
   */
  admitRecent(now: number): boolean {
    if (this.ring.length === 0) return false;
    const second = Math.floor(now / 1000);
    if (second !== this.second) {
      this.second = second;
      this.admitted = 0;
    }
    if (this.admitted >= RECENT_TRACES_PER_SECOND) return false;
    this.admitted++;
    return true;
  }

  /** Keeps `span` in the recent list once exported (call before it ends). */
  markRecent(span: object): void {
    this.marked.add(span);
  }

  /** Spans waiting in the queue now. */
  queued(): number {
    return this.entered - this.handed;
  }

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    const n = spans.length;
    this.handed += n;
    this.inner.export(spans, (result) => {
      if (result.code === ExportResultCode.SUCCESS) {
        this.exported += n;
        this.keep(spans);
      } else this.droppedExportFailed += n;
      done(result);
    });
  }

  /** The last exported spans of admitted traces, oldest first (at most the `recent_spans` setting). */
  recent(): ReadableSpan[] {
    const out: ReadableSpan[] = [];
    const size = this.ring.length;
    for (let i = 0; i < size; i++) {
      const s = this.ring[(this.next + i) % size];
      if (s !== undefined) out.push(s);
    }
    return out;
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  private keep(spans: ReadableSpan[]): void {
    const size = this.ring.length;
    if (size === 0) return;
    for (const s of spans) {
      if (!this.marked.has(s)) continue;
      this.ring[this.next] = s;
      this.next = (this.next + 1) % size;
    }
  }
}

const NOOP: SpanProcessor = {
  onStart() {},
  onEnd() {},
  forceFlush: () => Promise.resolve(),
  shutdown: () => Promise.resolve(),
};
