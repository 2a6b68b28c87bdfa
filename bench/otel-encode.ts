/**
 * `npx node --conditions=gw-source bench/otel-encode.ts`: CPU per span of the OTLP/protobuf
 * encoding of export batches, gw's span encoder (plugins/extensions/otel/span-encoder.ts)
 * against the SDK's `ProtobufTraceSerializer`, on the spans gw's tracer records for the
 * bench's JSON chat (bench/otel-request.ts), in batches of 512 as the batch processor sends
 * them. ABBA × ENCODE_CYCLES (4); reports each side's median and every cycle.
 */
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { ParentBasedSampler, type ReadableSpan, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace';
import { createHooks } from '../core/hooks.ts';
import { configSchema, resolveSettings } from '../plugins/extensions/otel/config.ts';
import { SpanAccount } from '../plugins/extensions/otel/span-account.ts';
import { SpanEncoder } from '../plugins/extensions/otel/span-encoder.ts';
import { SpanFactory } from '../plugins/extensions/otel/span.ts';
import { RequestTracer } from '../plugins/extensions/otel/tracer.ts';
import { createLogger } from '../server/log.ts';
import { abba } from './abba.ts';
import { chatRequest } from './otel-request.ts';
import { percentile } from './stats.ts';

const BATCH = 512;
const BATCHES = 200;
const CYCLES = Number(process.env.ENCODE_CYCLES ?? 4);

/** The spans of BATCH / 2 requests, as the tracer ends them. */
async function recordedSpans(): Promise<ReadableSpan[]> {
  const ended: ReadableSpan[] = [];
  const s = resolveSettings(configSchema.parse({ sampling_ratio: 1, metrics: false }), {});
  const resource = resourceFromAttributes({ 'service.name': 'gw', 'service.version': '0.0.0', 'service.instance.id': '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b' });
  const factory = new SpanFactory(
    new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(1) }),
    resource,
    { name: 'gw', version: '0.0.0' },
    { onEnd: (span) => ended.push(span) },
  );
  const hooks = createHooks();
  new RequestTracer(factory, s, undefined, new SpanAccount(NO_EXPORT, BATCH, 0)).tap(hooks, 'otel');
  const log = createLogger('error');
  for (let i = 0; ended.length < BATCH; i++) await chatRequest(hooks, i, log);
  return ended.slice(0, BATCH);
}

/** The tracer's account needs an exporter; nothing is exported here. */
const NO_EXPORT = { export: () => {}, shutdown: () => Promise.resolve() };

const spans = await recordedSpans();
const gw = new SpanEncoder();
const sdk = ProtobufTraceSerializer;
const bytes = sdk.serializeRequest(spans)!;
if (!Buffer.from(gw.serializeRequest(spans)!).equals(Buffer.from(bytes))) throw new Error('gw encoder and SDK serializer disagree');
/** µs of CPU per span over BATCHES batches (after as many unmeasured). */
const time = (e: { serializeRequest(s: ReadableSpan[]): Uint8Array | undefined }): number => {
  for (let i = 0; i < BATCHES; i++) e.serializeRequest(spans);
  const c0 = process.cpuUsage();
  for (let i = 0; i < BATCHES; i++) e.serializeRequest(spans);
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / BATCHES / BATCH;
};
const r = await abba(sdk, gw, CYCLES, async (e) => time(e));
const median = (v: number[]) =>
  percentile(
    v.toSorted((a, b) => a - b),
    50,
  );
const fmt = (v: number[]) => v.map((x) => x.toFixed(2)).join(', ');
process.stdout.write(
  `otel-encode: ${BATCH}-span batches of the bench's JSON chat (${bytes.length} bytes, ${(bytes.length / BATCH).toFixed(0)} a span), ABBA × ${CYCLES}\n`,
);
process.stdout.write(`  SDK ProtobufTraceSerializer  ${median(r.off).toFixed(2)} µs a span  (runs: ${fmt(r.off)})\n`);
process.stdout.write(`  gw SpanEncoder               ${median(r.on).toFixed(2)} µs a span  (runs: ${fmt(r.on)})\n`);
process.stdout.write(`  gw / SDK                     ${(median(r.on) / median(r.off)).toFixed(2)}×\n`);
