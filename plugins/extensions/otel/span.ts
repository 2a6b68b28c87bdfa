/**
 * gw's spans: the OpenTelemetry SDK's `ReadableSpan` (what its batch processor, its OTLP
 * exporters and the console's list read), recorded without the SDK's `Span`; attributes kept as
 * given, times in epoch ms made HrTime pairs when read. Why: docs/benchmarks.md#otel-span
 */
import {
  type Attributes,
  type AttributeValue,
  type Context,
  type HrTime,
  isSpanContextValid,
  type Link,
  type SpanContext,
  type SpanKind,
  type SpanStatus,
  SpanStatusCode,
  TraceFlags,
  trace,
} from '@opentelemetry/api';
import { hrTimeDuration, millisToHrTime } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import { type ReadableSpan, type Sampler, SamplingDecision, type TimedEvent } from '@opentelemetry/sdk-trace';
import { HexIdGenerator } from './ids.ts';

/**
 * The objects attribute sets are made of. Not plain `{}`: adding gw's varying attribute keys
 * to plain objects, request after request, grew the one transition tree that every `{}` and
 * JSON.parse result in the process starts from, and made unrelated keyed stores (the HTTP
 * client's header parsing) several times slower. Objects of a class of their own grow a
 * tree of their own, and stay fast objects (a prototype-less object would be a hash table).
 */
class AttributeSet {}

/** A new, empty attribute set (a span's, an event's, a metric series'). */
export function attributeSet(): Attributes {
  return new AttributeSet() as Attributes;
}

/** The instrumentation scope every span of one gateway shares. */
export interface Scope {
  readonly name: string;
  readonly version: string;
}

/** Where an ended span goes (the counting processor in front of the batch processor). */
export interface SpanSink {
  onEnd(span: ReadableSpan): void;
}

const NO_LINKS: Link[] = [];
/** What an unsampled span holds: nothing is ever added to it. */
const NO_ATTRIBUTES: Attributes = Object.freeze({}) as Attributes;
const NO_EVENTS: TimedEvent[] = Object.freeze([]) as unknown as TimedEvent[];
const UNSET: SpanStatus = { code: SpanStatusCode.UNSET };
const ZERO: HrTime = [0, 0];

/** A span of a sampled trace, recorded and handed to the sink as it ends (an unsampled one is a ContextSpan). */
export class GwSpan implements ReadableSpan {
  readonly name: string;
  readonly kind: SpanKind;
  readonly parentSpanContext: SpanContext | undefined;
  readonly attributes: Attributes;
  readonly links: Link[] = NO_LINKS;
  events: TimedEvent[] = NO_EVENTS;
  status: SpanStatus = UNSET;
  readonly resource: Resource;
  readonly instrumentationScope: Scope;
  readonly droppedAttributesCount = 0;
  readonly droppedEventsCount = 0;
  readonly droppedLinksCount = 0;
  ended = false;
  private readonly context: SpanContext;
  /** Epoch ms (the encoder reads it; exporters read `startTime`). */
  readonly startMs: number;
  private endAtMs = Number.NaN;
  private readonly sink: SpanSink;

  /**
   * `attributes` becomes the span's own object (not copied): the caller hands over one it
   * built; undefined for a fresh one. `startMs`: epoch ms.
   */
  constructor(
    context: SpanContext,
    parent: SpanContext | undefined,
    name: string,
    kind: SpanKind,
    startMs: number,
    attributes: Attributes | undefined,
    resource: Resource,
    scope: Scope,
    sink: SpanSink,
  ) {
    this.context = context;
    this.parentSpanContext = parent;
    this.name = name;
    this.kind = kind;
    this.startMs = startMs;
    this.attributes = attributes ?? attributeSet();
    this.resource = resource;
    this.instrumentationScope = scope;
    this.sink = sink;
  }

  spanContext(): SpanContext {
    return this.context;
  }

  get startTime(): HrTime {
    return millisToHrTime(this.startMs);
  }

  /** [0, 0] until the span ends. */
  get endTime(): HrTime {
    return this.ended ? millisToHrTime(this.endAtMs) : ZERO;
  }

  /** Epoch ms; NaN until the span ends (the encoder reads it; exporters read `endTime`). */
  get endMs(): number {
    return this.endAtMs;
  }

  get duration(): HrTime {
    return this.ended ? hrTimeDuration(this.startTime, this.endTime) : ZERO;
  }

  /** Always: only a sampled trace's spans are GwSpans. */
  isRecording(): boolean {
    return true;
  }

  setAttribute(key: string, value: AttributeValue): void {
    if (!this.ended) this.attributes[key] = value;
  }

  /** Adds every defined value of `a`. */
  setAttributes(a: Attributes): void {
    if (this.ended) return;
    for (const k in a) if (a[k] !== undefined) this.attributes[k] = a[k];
  }

  /** An event at `timeMs` (epoch ms). */
  addEvent(name: string, attributes: Attributes | undefined, timeMs: number): void {
    if (this.ended) return;
    if (this.events === NO_EVENTS) this.events = [];
    this.events.push({ name, attributes, time: millisToHrTime(timeMs), droppedAttributesCount: 0 });
  }

  /** An error status keeps its message; OK is final, as the API specifies. */
  setStatus(status: SpanStatus): void {
    if (this.ended || this.status.code === SpanStatusCode.OK || status.code === SpanStatusCode.UNSET) return;
    this.status =
      status.code === SpanStatusCode.ERROR && typeof status.message === 'string' ? { code: status.code, message: status.message } : { code: status.code };
  }

  /** Ends it at `endMs` (epoch ms; an end before the start counts as the start) and hands it to the sink. Once only. */
  end(endMs: number): void {
    if (this.ended) return;
    this.ended = true;
    this.endAtMs = Math.max(endMs, this.startMs);
    this.sink.onEnd(this);
  }
}

/**
 * A span of a trace that is not sampled: its context alone, for the `traceparent` it
 * propagates and the trace id the answer names; nothing is ever recorded on it or exported.
 * A class of its own: a request of an unsampled trace (the lever `sampling_ratio` gives
 * operators) then builds two objects of one field each, where a GwSpan has twenty.
 */
export class ContextSpan {
  readonly attributes: Attributes = NO_ATTRIBUTES;
  private readonly context: SpanContext;

  constructor(context: SpanContext) {
    this.context = context;
  }

  spanContext(): SpanContext {
    return this.context;
  }

  isRecording(): boolean {
    return false;
  }

  setAttribute(_key: string, _value: AttributeValue): void {}

  setAttributes(_a: Attributes): void {}

  addEvent(_name: string, _attributes: Attributes | undefined, _timeMs: number): void {}

  setStatus(_status: SpanStatus): void {}

  end(_endMs: number): void {}
}

/** A span as the tracer holds it: recording (its trace is sampled) or its context alone. */
export type TraceSpan = GwSpan | ContextSpan;

const ROOT_FLAGS = { sampled: TraceFlags.SAMPLED, unsampled: TraceFlags.NONE } as const;

/**
 * Starts gw's spans as the SDK's tracer would: a trace's first span asks the sampler (the
 * SDK's own, parent-based, so a client's `traceparent` decides when it carries one) and
 * continues the client's trace id and `tracestate`; a child takes its parent's trace, flags
 * and state, as the parent-based sampler decides for a local parent. Ids are drawn as the
 * SDK's generator draws them, more cheaply (ids.ts).
 */
export class SpanFactory {
  private readonly ids = new HexIdGenerator();
  private readonly sampler: Sampler;
  private readonly resource: Resource;
  private readonly scope: Scope;
  private readonly sink: SpanSink;

  constructor(sampler: Sampler, resource: Resource, scope: Scope, sink: SpanSink) {
    this.sampler = sampler;
    this.resource = resource;
    this.scope = scope;
    this.sink = sink;
  }

  /**
   * A trace's first span in this process, child of the remote span `parent` carries, if any:
   * a GwSpan when the trace is sampled, else a ContextSpan. `attributes` are the sampler's
   * input and the span's own when sampled; a caller that builds them only for a sampled span
   * leaves them out and writes the span's `attributes` after (gw's sampler, parent-based
   * ratio, reads none).
   */
  startTrace(parent: Context, name: string, kind: SpanKind, startMs: number, attributes?: Attributes): TraceSpan {
    const remote = trace.getSpanContext(parent);
    const valid = remote !== undefined && isSpanContextValid(remote);
    const traceId = valid ? remote.traceId : this.ids.generateTraceId();
    const r = this.sampler.shouldSample(parent, traceId, name, kind, attributes ?? NO_ATTRIBUTES, NO_LINKS);
    const sampled = r.decision === SamplingDecision.RECORD_AND_SAMPLED;
    const context: SpanContext = {
      traceId,
      spanId: this.ids.generateSpanId(),
      traceFlags: sampled ? ROOT_FLAGS.sampled : ROOT_FLAGS.unsampled,
      traceState: r.traceState ?? (valid ? remote.traceState : undefined),
    };
    if (!sampled) return new ContextSpan(context);
    const own = attributes ?? attributeSet();
    if (r.attributes) Object.assign(own, r.attributes);
    return new GwSpan(context, valid ? remote : undefined, name, kind, startMs, own, this.resource, this.scope, this.sink);
  }

  /** A child of `parent` in the same trace, recording as its parent is. `attributes` is only kept when the trace is sampled. */
  startChild(parent: TraceSpan, name: string, kind: SpanKind, startMs: number, attributes: Attributes | undefined): TraceSpan {
    const p = parent.spanContext();
    const context: SpanContext = { traceId: p.traceId, spanId: this.ids.generateSpanId(), traceFlags: p.traceFlags, traceState: p.traceState };
    if (!parent.isRecording()) return new ContextSpan(context);
    return new GwSpan(context, p, name, kind, startMs, attributes, this.resource, this.scope, this.sink);
  }
}

/** The W3C `traceparent` (version 00) and `tracestate` headers that make `span` the parent of the callee's spans. */
export function traceHeaders(span: TraceSpan): Record<string, string> {
  const c = span.spanContext();
  const f = c.traceFlags & 0xff;
  const flags = f === TraceFlags.SAMPLED ? '01' : f === TraceFlags.NONE ? '00' : f.toString(16).padStart(2, '0');
  const h: Record<string, string> = { traceparent: `00-${c.traceId}-${c.spanId}-${flags}` };
  const state = c.traceState?.serialize();
  if (state) h.tracestate = state;
  return h;
}
