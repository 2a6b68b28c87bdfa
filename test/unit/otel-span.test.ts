/**
 * gw's spans (plugins/extensions/otel/span.ts): sampled by the SDK's parent-based sampler as
 * its tracer would, a child in its parent's trace with its flags and tracestate, only
 * sampled spans recorded and handed on (once, with HrTime start, end and duration), and the
 * W3C headers that make a span the callee's parent.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, trace } from '@opentelemetry/api';
import { TraceState } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, type ReadableSpan } from '@opentelemetry/sdk-trace';
import test from 'ava';
import { ContextSpan, GwSpan, SpanFactory, type TraceSpan, traceHeaders } from '../../plugins/extensions/otel/span.ts';

const RESOURCE = resourceFromAttributes({ 'service.name': 'gw' });
const SCOPE = { name: 'gw', version: '1' };

/** `span` as the recording span a sampled trace gets. */
function recording(span: TraceSpan): GwSpan {
  if (!(span instanceof GwSpan)) throw new Error('expected a recording span');
  return span;
}

function factory(on: boolean): { spans: SpanFactory; ended: ReadableSpan[] } {
  const ended: ReadableSpan[] = [];
  const sampler = new ParentBasedSampler({ root: on ? new AlwaysOnSampler() : new AlwaysOffSampler() });
  return { spans: new SpanFactory(sampler, RESOURCE, SCOPE, { onEnd: (s) => ended.push(s) }), ended };
}

test('a sampled trace: server and client spans recorded, ended once each with HrTime times, the client under the server', (t) => {
  const { spans, ended } = factory(true);
  const server = recording(
    spans.startTrace(ROOT_CONTEXT, 'POST /v1/chat/completions', SpanKind.SERVER, 1_700_000_000_000.5, { 'http.route': '/v1/chat/completions' }),
  );
  const client = recording(spans.startChild(server, 'chat m', SpanKind.CLIENT, 1_700_000_000_010, { 'gen_ai.request.model': 'm' }));
  t.true(server.isRecording());
  t.is(server.spanContext().traceFlags, TraceFlags.SAMPLED);
  t.regex(server.spanContext().traceId, /^[0-9a-f]{32}$/);
  t.is(client.spanContext().traceId, server.spanContext().traceId);
  t.is(client.parentSpanContext?.spanId, server.spanContext().spanId);
  t.is(server.parentSpanContext, undefined);
  t.deepEqual([client.startTime, client.endTime, client.duration, client.events], [[1_700_000_000, 10_000_000], [0, 0], [0, 0], []]);
  client.setAttributes({ 'gen_ai.usage.input_tokens': 12, skipped: undefined });
  client.addEvent('gw.stream.first_token', undefined, 1_700_000_000_020);
  client.setStatus({ code: SpanStatusCode.ERROR, message: 'upstream_timeout' });
  client.end(1_700_000_000_030.25);
  client.end(1_700_000_000_099);
  client.setAttribute('late', 1);
  server.end(1_700_000_000_040);
  t.deepEqual(
    ended.map((s) => s.name),
    ['chat m', 'POST /v1/chat/completions'],
  );
  const c = ended[0]!;
  t.deepEqual(c.attributes, { 'gen_ai.request.model': 'm', 'gen_ai.usage.input_tokens': 12 });
  t.deepEqual(c.startTime, [1_700_000_000, 10_000_000]);
  t.deepEqual(c.endTime, [1_700_000_000, 30_250_000]);
  t.deepEqual(c.duration, [0, 20_250_000]);
  t.deepEqual(c.events[0]!.time, [1_700_000_000, 20_000_000]);
  t.deepEqual(c.status, { code: SpanStatusCode.ERROR, message: 'upstream_timeout' });
  t.is(c.kind, SpanKind.CLIENT);
  t.is(c.resource, RESOURCE);
  t.deepEqual(c.instrumentationScope, SCOPE);
  t.true(c.ended);
  t.deepEqual(ended[1]!.startTime, [1_700_000_000, 500_000]);
});

test('an unsampled trace: its spans are contexts alone, keep nothing and reach no processor, yet carry ids for traceparent', (t) => {
  const { spans, ended } = factory(false);
  const server = spans.startTrace(ROOT_CONTEXT, 's', SpanKind.SERVER, 1, { a: 1 });
  const client = spans.startChild(server, 'c', SpanKind.CLIENT, 2, { b: 2 });
  client.setAttribute('x', 1);
  client.addEvent('e', undefined, 3);
  client.end(4);
  server.end(5);
  t.false(client.isRecording());
  t.true(server instanceof ContextSpan && client instanceof ContextSpan);
  t.deepEqual(client.attributes, {});
  t.is(client.spanContext().traceId, server.spanContext().traceId);
  t.not(client.spanContext().spanId, server.spanContext().spanId);
  t.is(ended.length, 0);
  t.regex(traceHeaders(client).traceparent!, new RegExp(`^00-${server.spanContext().traceId}-${client.spanContext().spanId}-00$`));
});

test("a client's sampled traceparent is followed even by a sampler that samples nothing new, with its tracestate", (t) => {
  const { spans } = factory(false);
  const remote = {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
    traceState: new TraceState('vendor=opaque'),
  };
  const server = recording(spans.startTrace(trace.setSpanContext(ROOT_CONTEXT, remote), 's', SpanKind.SERVER, 1, {}));
  t.true(server.isRecording());
  t.is(server.spanContext().traceId, remote.traceId);
  t.is(server.parentSpanContext?.spanId, remote.spanId);
  const client = spans.startChild(server, 'c', SpanKind.CLIENT, 2, {});
  t.deepEqual(traceHeaders(client), { traceparent: `00-${remote.traceId}-${client.spanContext().spanId}-01`, tracestate: 'vendor=opaque' });
});

test('an end before the start is recorded as a zero-length span', (t) => {
  const { spans, ended } = factory(true);
  spans.startTrace(ROOT_CONTEXT, 's', SpanKind.SERVER, 2000, {}).end(1000);
  t.deepEqual(ended[0]!.duration, [0, 0]);
});
