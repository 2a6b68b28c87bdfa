/**
 * OTLP/protobuf `ExportTraceServiceRequest` bytes for a batch of gw's spans: the bytes the SDK's
 * `ProtobufTraceSerializer` writes for them, byte for byte, in a third of its time (why:
 * docs/benchmarks.md#otel-span-encoder).
 *
 * It plugs into the SDK's OTLP/HTTP exporter as its serializer (telemetry.ts), so sending,
 * retries, timeouts, headers and the `OTEL_*` settings stay the SDK's. A batch it does not
 * fully know (a span that is not gw's, another resource or scope, links, an attribute value
 * of another type) goes to the SDK's serializer whole.
 *
 * Wire format: opentelemetry-proto `trace/v1/trace.proto` and `common/v1/common.proto`.
 */
import type { AttributeValue, Attributes } from '@opentelemetry/api';
import { type IExportTraceServiceResponse, type ISerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace';
import { GwSpan, type Scope } from './span.ts';

/** Attribute keys whose encoding is kept (gw's own and the conventions' are a few dozen). */
const MAX_KEYS = 1024;
/** The reused buffer's starting size, and the size past which it is not kept after a batch (bytes). */
const START_BUFFER = 1 << 16;
const MAX_KEPT_BUFFER = 1 << 22;
/** Longest string value kept with its key. */
const MAX_CACHED_CHARS = 64;
const MIN_INT64 = -(2 ** 63);
const MAX_INT64 = 2 ** 63;
const TWO_32 = 4294967296;
/** Span flags: the "has is_remote" bit, and the "is remote" bit (trace.proto SpanFlags). */
const HAS_IS_REMOTE = 0x100;
const IS_REMOTE = 0x200;

/** Field tags (field number << 3 | wire type) of trace.proto and common.proto. */
const T = {
  resourceSpans: 0x0a,
  resource: 0x0a,
  resourceDropped: 0x10,
  scopeSpans: 0x12,
  scope: 0x0a,
  span: 0x12,
  schemaUrl: 0x1a,
  traceId: 0x0a,
  spanId: 0x12,
  traceState: 0x1a,
  parentSpanId: 0x22,
  name: 0x2a,
  kind: 0x30,
  start: 0x39,
  end: 0x41,
  attribute: 0x4a,
  droppedAttributes: 0x50,
  event: 0x5a,
  droppedEvents: 0x60,
  droppedLinks: 0x70,
  status: 0x7a,
  /** Field 16, wire type 5: two bytes as a varint. */
  flags0: 0x85,
  flags1: 0x01,
  eventTime: 0x09,
  eventName: 0x12,
  eventAttribute: 0x1a,
  eventDropped: 0x20,
  statusMessage: 0x12,
  statusCode: 0x18,
  key: 0x0a,
  value: 0x12,
  string: 0x0a,
  bool: 0x10,
  int: 0x18,
  double: 0x21,
  array: 0x2a,
  bytes: 0x3a,
  arrayItem: 0x0a,
} as const;

/** An attribute key's encoding: its key field, and its last scalar value's whole KeyValue (length-prefixed). */
interface KeyEntry {
  readonly field: Uint8Array;
  value: AttributeValue | undefined;
  kv: Uint8Array | undefined;
  hits: number;
  copies: number;
}

/** The `ISerializer` the OTLP/HTTP trace exporter takes; responses are read by the SDK's. */
export class SpanEncoder implements ISerializer<ReadableSpan[], IExportTraceServiceResponse> {
  private buf = Buffer.allocUnsafe(START_BUFFER);
  private pos = 0;
  /** What each attribute key has encoded. */
  private readonly keys = new Map<string, KeyEntry>();
  /** The resource and scope messages of the last batch's spans, encoded. */
  private resource: Resource | undefined;
  private scope: Scope | undefined;
  private resourceBytes: Uint8Array | undefined;
  private scopeBytes: Uint8Array | undefined;
  /** Set when the batch being written holds a value of a type this does not write (an object): the SDK's serializer writes the batch instead. */
  private foreign = false;

  /** The request's bytes (a fresh array: the exporter may hold it for a retry). */
  serializeRequest(spans: ReadableSpan[]): Uint8Array | undefined {
    if (spans.length === 0 || !this.knows(spans)) return ProtobufTraceSerializer.serializeRequest(spans);
    const first = spans[0] as GwSpan;
    // the SDK's resources keep attribute values only, so the cached header is never foreign
    this.header(first.resource, first.instrumentationScope);
    this.pos = 0;
    this.foreign = false;
    this.byte(T.resourceSpans);
    const resourceSpans = this.begin(3);
    this.raw(this.resourceBytes!);
    this.byte(T.scopeSpans);
    const scopeSpans = this.begin(3);
    this.raw(this.scopeBytes!);
    for (let i = 0; i < spans.length; i++) this.span(spans[i] as GwSpan);
    this.end(scopeSpans, 3);
    if (first.resource.schemaUrl) this.string(T.schemaUrl, first.resource.schemaUrl);
    this.end(resourceSpans, 3);
    if (this.foreign) return ProtobufTraceSerializer.serializeRequest(spans);
    const out = this.copy(0, this.pos);
    // a batch of captured message content can grow the buffer to megabytes: not kept for the next
    if (this.buf.length > MAX_KEPT_BUFFER) this.buf = Buffer.allocUnsafe(START_BUFFER);
    return out;
  }

  /** A fresh array of the buffer's bytes [from, to). */
  private copy(from: number, to: number): Uint8Array {
    const out = Buffer.allocUnsafeSlow(to - from);
    this.buf.copy(out, 0, from, to);
    return out;
  }

  deserializeResponse(data: Uint8Array): IExportTraceServiceResponse {
    return ProtobufTraceSerializer.deserializeResponse(data);
  }

  /** Whether every span is gw's, of one resource and scope, without links (attribute values are checked as they are written). */
  private knows(spans: ReadableSpan[]): boolean {
    const first = spans[0];
    if (!(first instanceof GwSpan)) return false;
    for (let i = 0; i < spans.length; i++) {
      const s = spans[i];
      if (!(s instanceof GwSpan) || s.resource !== first.resource || s.instrumentationScope !== first.instrumentationScope) return false;
      if (s.links.length > 0) return false;
      const ctx = s.spanContext();
      if (ctx.traceId.length !== 32 || ctx.spanId.length !== 16) return false;
      const parent = s.parentSpanContext?.spanId;
      if (parent && parent.length !== 16) return false;
    }
    return true;
  }

  /** Encodes the resource and scope messages (with their tags) when they changed. */
  private header(resource: Resource, scope: Scope): void {
    if (resource === this.resource && scope === this.scope) return;
    this.pos = 0;
    this.byte(T.resource);
    const r = this.begin(1);
    this.attributes(T.resource, resource.attributes);
    this.byte(T.resourceDropped);
    this.byte(0);
    this.end(r, 1);
    this.resourceBytes = this.copy(0, this.pos);
    this.pos = 0;
    this.byte(T.scope);
    const s = this.begin(1);
    this.string(T.string, scope.name);
    if (scope.version) this.string(T.value, scope.version);
    this.end(s, 1);
    this.scopeBytes = this.copy(0, this.pos);
    this.resource = resource;
    this.scope = scope;
  }

  private span(s: GwSpan): void {
    const ctx = s.spanContext();
    this.byte(T.span);
    const start = this.begin(2);
    this.hex(T.traceId, ctx.traceId);
    this.hex(T.spanId, ctx.spanId);
    const state = ctx.traceState?.serialize();
    if (state) this.string(T.traceState, state);
    const parent = s.parentSpanContext;
    if (parent?.spanId) this.hex(T.parentSpanId, parent.spanId);
    this.string(T.name, s.name);
    const kind = s.kind + 1;
    this.byte(T.kind);
    this.varint(kind);
    this.byte(T.start);
    this.nanos(s.startMs);
    this.byte(T.end);
    this.nanos(s.ended ? s.endMs : 0);
    this.attributes(T.attribute, s.attributes);
    this.byte(T.droppedAttributes);
    this.varint(s.droppedAttributesCount);
    const events = s.events;
    for (let i = 0; i < events.length; i++) this.event(events[i]!);
    this.byte(T.droppedEvents);
    this.varint(s.droppedEventsCount);
    this.byte(T.droppedLinks);
    this.varint(s.droppedLinksCount);
    this.byte(T.status);
    const status = this.begin(1);
    if (s.status.message) this.string(T.statusMessage, s.status.message);
    this.byte(T.statusCode);
    this.varint(s.status.code);
    this.end(status, 1);
    const flags = (ctx.traceFlags & 0xff) | HAS_IS_REMOTE | (parent?.isRemote ? IS_REMOTE : 0);
    this.byte(T.flags0);
    this.byte(T.flags1);
    this.fixed32(flags);
    this.end(start, 2);
  }

  private event(e: TimedEvent): void {
    this.byte(T.event);
    const start = this.begin(1);
    this.byte(T.eventTime);
    this.hrTime(e.time[0], e.time[1]);
    this.string(T.eventName, e.name);
    if (e.attributes) this.attributes(T.eventAttribute, e.attributes);
    this.byte(T.eventDropped);
    this.varint(e.droppedAttributesCount ?? 0);
    this.end(start, 1);
  }

  /** Each own key of `a` as a KeyValue field `tag`, in the object's order (as the SDK). */
  private attributes(tag: number, a: Attributes): void {
    for (const k in a) {
      if (Object.hasOwn(a, k)) this.attribute(tag, k, a[k]);
    }
  }

  /**
   * One attribute as a KeyValue field `tag`. A scalar value the key had last time is copied
   * whole from the key's entry; the copy is made only while the key's repeats outnumber its
   * copies, so a value unique to each span (a request id) is copied once, not each time.
   */
  private attribute(tag: number, k: string, v: AttributeValue | undefined): void {
    let e = this.keys.get(k);
    if (e !== undefined && v === e.value && e.kv !== undefined) {
      e.hits++;
      this.byte(tag);
      this.raw(e.kv);
      return;
    }
    this.byte(tag);
    const at = this.pos;
    const kv = this.begin(1);
    if (e !== undefined) this.raw(e.field);
    else {
      this.string(T.key, k);
      if (this.keys.size < MAX_KEYS) {
        e = { field: this.copy(at + 1, this.pos), value: undefined, kv: undefined, hits: 0, copies: 0 };
        this.keys.set(k, e);
      }
    }
    this.byte(T.value);
    const value = this.begin(1);
    this.any(v);
    this.end(value, 1);
    this.end(kv, 1);
    if (e !== undefined && e.copies <= e.hits && (typeof v === 'number' || typeof v === 'boolean' || (typeof v === 'string' && v.length <= MAX_CACHED_CHARS))) {
      e.value = v;
      e.kv = this.copy(at, this.pos);
      e.copies++;
    }
  }

  /** An AnyValue's content; undefined and null leave it empty, as the SDK does; any other object marks the batch foreign. */
  private any(v: AttributeValue | undefined | null): void {
    if (typeof v === 'string') this.string(T.string, v);
    else if (typeof v === 'boolean') {
      this.byte(T.bool);
      this.byte(v ? 1 : 0);
    } else if (typeof v === 'number') {
      if (Number.isInteger(v) && v >= MIN_INT64 && v < MAX_INT64) {
        this.byte(T.int);
        this.varint(v);
      } else {
        this.byte(T.double);
        this.ensure(8);
        this.buf.writeDoubleLE(v, this.pos);
        this.pos += 8;
      }
    } else if (Array.isArray(v)) {
      this.byte(T.array);
      const arr = this.begin(1);
      for (let i = 0; i < v.length; i++) {
        this.byte(T.arrayItem);
        const item = this.begin(1);
        this.any(v[i]);
        this.end(item, 1);
      }
      this.end(arr, 1);
    } else if (v instanceof Uint8Array) {
      this.byte(T.bytes);
      this.varint(v.length);
      this.raw(v);
    } else if (v !== undefined && v !== null) this.foreign = true;
  }

  /** Reserves `reserved` bytes for a length; returns where they start. */
  private begin(reserved: number): number {
    this.ensure(reserved);
    const at = this.pos;
    this.pos += reserved;
    return at;
  }

  /** Writes the length of what follows `at + reserved`, moving it when the length needs more or fewer bytes. */
  private end(at: number, reserved: number): void {
    const from = at + reserved;
    const len = this.pos - from;
    const size = varintSize(len);
    if (size !== reserved) {
      this.ensure(size - reserved);
      this.buf.copyWithin(at + size, from, this.pos);
      this.pos += size - reserved;
    }
    let p = at;
    let v = len;
    while (v > 127) {
      this.buf[p++] = (v & 127) | 128;
      v >>>= 7;
    }
    this.buf[p] = v;
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  private byte(b: number): void {
    this.ensure(1);
    this.buf[this.pos++] = b;
  }

  private raw(bytes: Uint8Array): void {
    const n = bytes.length;
    this.ensure(n);
    if (n > 64) {
      this.buf.set(bytes, this.pos);
      this.pos += n;
      return;
    }
    const b = this.buf;
    let p = this.pos;
    for (let i = 0; i < n; i++) b[p++] = bytes[i]!;
    this.pos = p;
  }

  /** A varint of a non-negative integer below 2^32, or any int64 (two's complement, 10 bytes when negative). */
  private varint(value: number): void {
    this.ensure(10);
    const b = this.buf;
    if (value >= 0 && value < TWO_32) {
      let v = value >>> 0;
      while (v > 127) {
        b[this.pos++] = (v & 127) | 128;
        v >>>= 7;
      }
      b[this.pos++] = v;
      return;
    }
    let low: number;
    let high: number;
    if (value >= 0) {
      low = value >>> 0;
      high = Math.floor(value / TWO_32) >>> 0;
    } else {
      const abs = -value;
      low = ~(abs >>> 0) >>> 0;
      high = ~(Math.floor(abs / TWO_32) >>> 0) >>> 0;
      low = (low + 1) >>> 0;
      if (low === 0) high = (high + 1) >>> 0;
    }
    while (high > 0 || low > 127) {
      b[this.pos++] = (low & 127) | 128;
      low = ((low >>> 7) | (high << 25)) >>> 0;
      high >>>= 7;
    }
    b[this.pos++] = low;
  }

  private fixed32(v: number): void {
    this.ensure(4);
    this.buf.writeUInt32LE(v >>> 0, this.pos);
    this.pos += 4;
  }

  /** Epoch ms as fixed64 Unix nanoseconds, split into seconds and nanoseconds as the SDK's HrTime is. */
  private nanos(ms: number): void {
    this.hrTime(Math.trunc(ms / 1000), Math.round((ms % 1000) * 1e6));
  }

  /**
   * seconds·10⁹ + nanoseconds as fixed64, exactly: 10⁹ = 2⁹·1953125, and seconds·1953125 stays
   * below 2⁵³ for every second before the year 2106.
   */
  private hrTime(seconds: number, nanoseconds: number): void {
    const m = seconds * 1953125;
    const mHigh = Math.floor(m / 8388608);
    const sum = (m % 8388608) * 512 + nanoseconds;
    const carry = Math.floor(sum / TWO_32);
    this.ensure(8);
    this.buf.writeUInt32LE(sum - carry * TWO_32, this.pos);
    this.buf.writeUInt32LE((mHigh + carry) >>> 0, this.pos + 4);
    this.pos += 8;
  }

  /** A length-delimited UTF-8 string field. */
  private string(tag: number, s: string): void {
    const n = s.length;
    let ascii = true;
    for (let i = 0; i < n; i++)
      if (s.charCodeAt(i) > 127) {
        ascii = false;
        break;
      }
    this.byte(tag);
    if (ascii) {
      this.varint(n);
      this.ensure(n);
      const b = this.buf;
      let p = this.pos;
      for (let i = 0; i < n; i++) b[p++] = s.charCodeAt(i);
      this.pos = p;
      return;
    }
    const bytes = Buffer.byteLength(s, 'utf8');
    this.varint(bytes);
    this.ensure(bytes);
    this.pos += this.buf.write(s, this.pos, bytes, 'utf8');
  }

  /** A bytes field from a lowercase or uppercase hex id (trace and span ids). */
  private hex(tag: number, id: string): void {
    const n = id.length >> 1;
    this.byte(tag);
    this.varint(n);
    this.ensure(n);
    const b = this.buf;
    let p = this.pos;
    for (let i = 0; i < id.length; i += 2) b[p++] = (nibble(id.charCodeAt(i)) << 4) | nibble(id.charCodeAt(i + 1));
    this.pos = p;
  }
}

/** Hex digit values by char code (0-9, a-f, A-F); other chars read as the SDK reads them. */
const NIBBLE = new Uint8Array(128);
for (let c = 0; c < 128; c++) NIBBLE[c] = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : (c - 55) & 0xff;

function nibble(c: number): number {
  return c < 128 ? NIBBLE[c]! : c - 55;
}

function varintSize(v: number): number {
  if (v < 128) return 1;
  if (v < 16384) return 2;
  if (v < 2097152) return 3;
  if (v < 268435456) return 4;
  return 5;
}
