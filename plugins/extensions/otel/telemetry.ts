/**
 * The OpenTelemetry SDK objects of one gateway: gw's spans (span.ts), sampled by the SDK's
 * parent-based ratio sampler and ended into the SDK's batch span processor, which has a
 * bounded queue and exports over OTLP/HTTP (protobuf or JSON); and a meter provider
 * exporting the GenAI metrics the same way. Nothing is registered globally (several gateways
 * share a test process; gw's own spans are its only spans), so contexts are passed explicitly.
 *
 * An unreachable or hanging collector costs a request nothing: spans queue (at most
 * `max_queue_size`), one export runs at a time for at most `export_timeout_ms`, and what does
 * not fit or fails is dropped and counted (SpanAccount, `gw_otel_spans_dropped_total`).
 */
import { randomUUID } from 'node:crypto';
import { OTLPMetricExporter as JsonMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as ProtoMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPExporterBase } from '@opentelemetry/otlp-exporter-base';
import { convertLegacyHttpOptions, createOtlpHttpExportDelegate } from '@opentelemetry/otlp-exporter-base/node-http';
import { TraceExporterMetricsHelper } from '@opentelemetry/otlp-transformer';
import { detectResources, envDetector, resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import { AggregationTemporality, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  type SpanExporter,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_INSTANCE_ID, ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { OtelSettings } from './config.ts';
import { HistogramProducer } from './histograms.ts';
import { GenAiMetrics } from './metrics.ts';
import { SpanAccount } from './span-account.ts';
import { SpanEncoder } from './span-encoder.ts';
import { SpanFactory } from './span.ts';

/** The instrumentation scope gw's spans and metrics carry. */
export const SCOPE = 'gw';

export interface Telemetry {
  /** Starts the spans; the ended ones go to the batch processor. */
  readonly spans: SpanFactory;
  /** The GenAI histograms; undefined when `metrics = false`. */
  readonly metrics: GenAiMetrics | undefined;
  /** Spans queued, exported, dropped; the recent ones for the console. */
  readonly account: SpanAccount;
  /** Exports what is queued (spans and metrics). */
  flush(): Promise<void>;
  /** Exports what is queued, then stops; bounded by the export timeout. */
  shutdown(): Promise<void>;
}

/** Builds the providers for `s`; `version` is gw's (service.version). */
export function createTelemetry(s: OtelSettings, version: string): Telemetry {
  const resource = buildResource(s, version);
  const base = s.endpoint?.replace(/\/+$/, '');
  const json = s.protocol === 'http/json';
  const common = { headers: s.headers, timeoutMillis: s.exportTimeoutMs, concurrencyLimit: 2 };
  const traceUrl = base === undefined ? undefined : `${base}/v1/traces`;
  const inner = json ? new JsonTraceExporter({ ...common, url: traceUrl }) : protobufTraceExporter({ ...common, url: traceUrl });
  const account = new SpanAccount(inner, s.maxQueueSize, s.recentSpans);
  const processor = new BatchSpanProcessor({
    exporter: account,
    maxQueueSize: s.maxQueueSize,
    maxExportBatchSize: s.maxExportBatchSize,
    scheduledDelayMillis: s.scheduleDelayMs,
    // the exporter gives up at its own timeout first; this only bounds a stuck one
    exportTimeoutMillis: s.exportTimeoutMs + 1000,
  });
  account.watch(processor);
  const sampler = new ParentBasedSampler({ root: rootSampler(s.samplingRatio) });
  const spans = new SpanFactory(sampler, resource, { name: SCOPE, version }, account.front);

  let meterProvider: MeterProvider | undefined;
  let metrics: GenAiMetrics | undefined;
  if (s.metrics) {
    metrics = new GenAiMetrics();
    const metricUrl = base === undefined ? undefined : `${base}/v1/metrics`;
    // delta: each process exports its own increments, so instances and --workers add up at the backend
    const opts = { ...common, url: metricUrl, temporalityPreference: AggregationTemporality.DELTA };
    const exporter = json ? new JsonMetricExporter(opts) : new ProtoMetricExporter(opts);
    meterProvider = new MeterProvider({
      resource,
      readers: [
        new PeriodicExportingMetricReader({
          exporter,
          exportIntervalMillis: s.metricsIntervalMs,
          exportTimeoutMillis: Math.min(s.metricsIntervalMs, s.exportTimeoutMs),
          metricProducers: [new HistogramProducer({ name: SCOPE, version }, metrics.all())],
        }),
      ],
    });
  }

  return {
    spans,
    metrics,
    account,
    async flush() {
      await Promise.allSettled([account.front.forceFlush(), meterProvider?.forceFlush()]);
    },
    async shutdown() {
      await Promise.allSettled([account.front.shutdown(), meterProvider?.shutdown()]);
    },
  };
}

/**
 * The SDK's sampler for a trace that starts at gw (no sampled or unsampled `traceparent` from
 * the client): `sampling_ratio` of the trace ids. At 1 and 0, the SDK's always-on and
 * always-off samplers: they decide as its ratio sampler does at those ratios for every valid
 * trace id (gw's always are), without checking the id with a regular expression and reading
 * its 32 digits on every request.
 */
export function rootSampler(ratio: number): Sampler {
  if (ratio >= 1) return new AlwaysOnSampler();
  if (ratio <= 0) return new AlwaysOffSampler();
  return new TraceIdRatioBasedSampler(ratio);
}

/**
 * The SDK's OTLP/HTTP protobuf trace exporter (`@opentelemetry/exporter-trace-otlp-proto`
 * builds the same one) with gw's span encoder as its serializer: same bytes, a fraction of
 * the CPU (span-encoder.ts). Sending, retries, timeouts and the `OTEL_EXPORTER_OTLP_*`
 * settings are the SDK's.
 */
function protobufTraceExporter(config: Parameters<typeof convertLegacyHttpOptions>[0]): SpanExporter {
  const options = convertLegacyHttpOptions(config, 'TRACES', 'v1/traces', { 'Content-Type': 'application/x-protobuf' });
  return new OTLPExporterBase(createOtlpHttpExportDelegate(options, new SpanEncoder(), 'otlp_http_span_exporter', TraceExporterMetricsHelper, undefined));
}

/**
 * `service.name` (the section's, else `OTEL_SERVICE_NAME`, else "gw"), `service.version`,
 * `service.instance.id` (a random UUID per process, as the conventions recommend: each
 * `--workers` worker and each instance exports delta metrics of its own, which a backend
 * adds up only when their resources differ), `OTEL_RESOURCE_ATTRIBUTES`, then the section's
 * `resource_attributes` over them.
 */
function buildResource(s: OtelSettings, version: string): Resource {
  const fromEnv = detectResources({ detectors: [envDetector] });
  const defaults = resourceFromAttributes({ [ATTR_SERVICE_NAME]: 'gw', [ATTR_SERVICE_VERSION]: version, [ATTR_SERVICE_INSTANCE_ID]: randomUUID() });
  let r = defaults.merge(fromEnv).merge(resourceFromAttributes(s.resourceAttributes));
  if (s.serviceName !== undefined) r = r.merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: s.serviceName }));
  return r;
}
