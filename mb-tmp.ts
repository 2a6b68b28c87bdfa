import { SpanKind, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { BatchSpanProcessor, TracerProvider, ParentBasedSampler, TraceIdRatioBasedSampler, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { randomFillSync } from 'node:crypto';
const N = 50000;
let sink = 0;
const exporter = { export(spans: ReadableSpan[], done: (r: any) => void) { sink += ProtobufTraceSerializer.serializeRequest(spans)!.length; done({ code: 0 }); }, shutdown: async () => {} };
const noExp = { export(spans: ReadableSpan[], done: (r: any) => void) { sink += spans.length; done({ code: 0 }); }, shutdown: async () => {} };
const resource = resourceFromAttributes({ 'service.name': 'gw', 'service.version': '0.2.0' });
function sdk(exp: any) {
  const p = new BatchSpanProcessor({ exporter: exp, maxQueueSize: 4096, maxExportBatchSize: 512, scheduledDelayMillis: 1000 });
  const tp = new TracerProvider({ resource, sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(1) }), spanProcessors: [p] });
  return tp.getTracer('gw', '0.2.0');
}
function req(tracer: any) {
  const now = Date.now();
  const server = tracer.startSpan('POST /v1/chat/completions', { kind: SpanKind.SERVER, startTime: now, attributes: { 'http.request.method': 'POST', 'http.route': '/v1/chat/completions', 'gw.route': 'chat', 'gw.request_id': 'req_abcdefabcdef' } }, ROOT_CONTEXT);
  const ctx = trace.setSpan(ROOT_CONTEXT, server);
  const client = tracer.startSpan('chat gpt-4o', { kind: SpanKind.CLIENT, startTime: now, attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.max_tokens': 100, 'gen_ai.request.temperature': 0.5, 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'gpt-4o', 'gw.provider': 'up', 'gw.attempt': 1, 'gw.retry': false, 'gw.fallback': false } }, ctx);
  client.setAttributes({ 'gen_ai.response.id': 'chatcmpl-123', 'gen_ai.response.model': 'gpt-4o-2024', 'gen_ai.response.finish_reasons': ['stop'], 'gen_ai.usage.input_tokens': 10, 'gen_ai.usage.output_tokens': 20, 'gw.cost_usd': 0.0001 });
  client.end(now + 1);
  server.setAttributes({ 'http.response.status_code': 200, 'gw.key': 'default', 'gw.model': 'gpt-4o', 'gw.cache_hit': false, 'gw.attempts': 1, 'gw.overhead_ms': 0.2, 'gw.upstream_ms': 1, 'gw.provider': 'up', 'gw.served_model': 'gpt-4o' });
  server.end(now + 2);
}
function run(label: string, f: () => void) {
  for (let i = 0; i < 5000; i++) f();
  const c0 = process.cpuUsage(); const t0 = performance.now();
  for (let i = 0; i < N; i++) f();
  const dt = performance.now() - t0; const c = process.cpuUsage(c0);
  console.log(label, ((dt * 1000) / N).toFixed(2), 'µs/req wall', (((c.user + c.system)) / N).toFixed(2), 'µs/req cpu');
}
const t1 = sdk(noExp), t2 = sdk(exporter);
for (let k = 0; k < 2; k++) {
  run('sdk spans, no serialize', () => req(t1));
  run('sdk spans + protobuf   ', () => req(t2));
}
console.log(sink > 0);
