/**
 * gw's span encoder (plugins/extensions/otel/span-encoder.ts) writes the bytes the SDK's own
 * protobuf serializer writes for the same spans: every field and attribute type gw's spans
 * carry, lengths that need more than the one or two bytes reserved for them, a batch larger
 * than the starting buffer, a batch after another (the reused buffer and the cached resource,
 * scope and keys), and batches it leaves to the SDK.
 */
import { defaultTextMapGetter, ROOT_CONTEXT, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOnSampler, ParentBasedSampler, type ReadableSpan } from '@opentelemetry/sdk-trace';
import test from 'ava';
import { SpanEncoder } from '../../plugins/extensions/otel/span-encoder.ts';
import { attributeSet, type GwSpan, SpanFactory } from '../../plugins/extensions/otel/span.ts';

const RESOURCE = resourceFromAttributes({
  'service.name': 'gw',
  'service.version': '1.2.3',
  'service.instance.id': 'b7e3c1f0-1d2e-4f5a-8b9c-0d1e2f3a4b5c',
  'host.cores': 2,
});
const SCOPE = { name: 'gw', version: '1.2.3' };
const T0 = 1_764_000_000_123.456;

function factory(resource = RESOURCE, scope = SCOPE): { spans: SpanFactory; ended: ReadableSpan[] } {
  const ended: ReadableSpan[] = [];
  return { spans: new SpanFactory(new ParentBasedSampler({ root: new AlwaysOnSampler() }), resource, scope, { onEnd: (s) => ended.push(s) }), ended };
}

/** A request's two spans, with the attribute types and span parts gw records. */
function request(spans: SpanFactory, i: number, parent = ROOT_CONTEXT): void {
  const a = attributeSet();
  a['http.request.method'] = 'POST';
  a['http.route'] = '/v1/chat/completions';
  a['gw.request_id'] = `req-${i}`;
  const server = spans.startTrace(parent, 'POST /v1/chat/completions', SpanKind.SERVER, T0 + i, a);
  const c = attributeSet();
  c['gen_ai.operation.name'] = 'chat';
  c['gen_ai.request.max_tokens'] = 64;
  c['gen_ai.request.temperature'] = 0.2;
  c['gw.retry'] = false;
  c['gw.fallback'] = true;
  const client = spans.startChild(server, 'chat gpt-4o-mini', SpanKind.CLIENT, T0 + i + 0.25, c);
  const e = attributeSet();
  e['gen_ai.response.finish_reasons'] = ['stop', 'length'];
  e['gen_ai.usage.input_tokens'] = 12 + i;
  e['gw.cost_usd'] = 0.0000036;
  e['gw.big'] = 2 ** 40 + i;
  e['gw.negative'] = -5;
  e['gw.most_negative'] = -(2 ** 63);
  e['gw.beyond_int64'] = 2 ** 64;
  e['gw.bytes'] = new Uint8Array([0, 1, 255]);
  e['gw.mixed'] = [1, 2.5, true, 'x'];
  e['gw.text'] = 'Grüße, 世界 🌍';
  client.setAttributes(e);
  const first = attributeSet();
  first['gen_ai.response.time_to_first_chunk'] = 0.012;
  client.addEvent('gw.stream.first_token', first, T0 + i + 1);
  client.addEvent('gw.stream.end', undefined, T0 + i + 2);
  client.setStatus({ code: SpanStatusCode.ERROR, message: 'upstream_timeout: délai dépassé' });
  client.end(T0 + i + 2.5);
  server.setAttribute('http.response.status_code', 504);
  server.end(T0 + i + 3);
}

function same(t: import('ava').ExecutionContext, enc: SpanEncoder, batch: ReadableSpan[]): void {
  const ours = enc.serializeRequest(batch)!;
  const sdk = ProtobufTraceSerializer.serializeRequest(batch)!;
  t.is(ours.length, sdk.length);
  t.true(Buffer.from(ours).equals(Buffer.from(sdk)));
}

test('the SDK serializer’s bytes for every attribute type, events, error status, a remote parent and its tracestate', (t) => {
  const { spans, ended } = factory();
  request(spans, 0);
  const remote = new W3CTraceContextPropagator().extract(
    ROOT_CONTEXT,
    { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', tracestate: 'vendor=opaque,gw=1' },
    defaultTextMapGetter,
  );
  request(spans, 1, remote);
  t.is(ended[3]!.parentSpanContext?.isRemote, true);
  t.is(ended[3]!.spanContext().traceState?.serialize(), 'vendor=opaque,gw=1');
  same(t, new SpanEncoder(), ended);
});

test('lengths past their reserved bytes: long values, a span over 16 KB, a batch past the starting 64 KB buffer', (t) => {
  const { spans, ended } = factory();
  for (let i = 0; i < 300; i++) request(spans, i);
  const long = spans.startTrace(ROOT_CONTEXT, 'POST /v1/messages', SpanKind.SERVER, T0, attributeSet());
  long.setAttribute('gen_ai.input.messages', 'é'.repeat(20_000));
  long.setAttribute('gen_ai.system_instructions', 'a'.repeat(130));
  long.end(T0 + 1);
  same(t, new SpanEncoder(), ended);
});

test('a batch of megabytes (captured content) gives the SDK’s bytes, and its buffer is not kept for the next batch', (t) => {
  const enc = new SpanEncoder();
  const { spans, ended } = factory();
  const big = spans.startTrace(ROOT_CONTEXT, 'POST /v1/chat/completions', SpanKind.SERVER, T0, attributeSet());
  big.setAttribute('gen_ai.input.messages', 'x'.repeat(5_000_000));
  big.end(T0 + 1);
  same(t, enc, ended);
  t.true((enc as unknown as { buf: Buffer }).buf.length <= 1 << 22);
  request(spans, 1);
  same(t, enc, ended.slice(1));
});

test('batch after batch: the reused buffer, cached keys and header, and a new resource, give the SDK’s bytes each time', (t) => {
  const enc = new SpanEncoder();
  const one = factory();
  request(one.spans, 0);
  same(t, enc, one.ended);
  same(t, enc, one.ended.slice(0, 1));
  const other = factory(resourceFromAttributes({ 'service.name': 'other' }), { name: 'gw', version: '' });
  request(other.spans, 7);
  same(t, enc, other.ended);
  same(t, enc, one.ended);
});

test('a batch it does not know goes to the SDK whole: a span not gw’s, two resources, an object value (in a span, an array, an event), an empty batch', (t) => {
  const enc = new SpanEncoder();
  const { spans, ended } = factory();
  request(spans, 0);
  const g = ended[0] as GwSpan;
  const foreign = { ...g, spanContext: () => g.spanContext(), startTime: g.startTime, endTime: g.endTime, duration: g.duration } as unknown as ReadableSpan;
  same(t, enc, [...ended, foreign]);
  const other = factory(resourceFromAttributes({ 'service.name': 'other' }));
  request(other.spans, 1);
  same(t, enc, [...ended, ...other.ended]);
  const kv = spans.startTrace(ROOT_CONTEXT, 'kv', SpanKind.SERVER, T0, attributeSet());
  (kv.attributes as Record<string, unknown>)['gw.object'] = { a: 1 };
  kv.end(T0 + 1);
  same(t, enc, ended.slice(-1));
  const nested = spans.startTrace(ROOT_CONTEXT, 'nested', SpanKind.SERVER, T0, attributeSet());
  (nested.attributes as Record<string, unknown>)['gw.list'] = ['a', { b: 2 }];
  nested.end(T0 + 1);
  same(t, enc, ended.slice(-1));
  const event = spans.startTrace(ROOT_CONTEXT, 'event', SpanKind.SERVER, T0, attributeSet());
  event.addEvent('gw.object', { 'gw.object': { c: 3 } } as unknown as Record<string, string>, T0 + 1);
  event.end(T0 + 2);
  same(t, enc, ended.slice(-1));
  // after a batch the SDK wrote, the encoder's own state is clean
  request(spans, 2);
  same(t, enc, ended.slice(-2));
  t.deepEqual(enc.serializeRequest([]), ProtobufTraceSerializer.serializeRequest([]));
});

test('responses are read by the SDK’s serializer', (t) => {
  t.deepEqual(new SpanEncoder().deserializeResponse(new Uint8Array()), ProtobufTraceSerializer.deserializeResponse(new Uint8Array()));
});
