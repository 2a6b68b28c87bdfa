/**
 * `[extensions.otel]` and the standard `OTEL_*` environment variables it honours. A setting
 * in the section wins over its variable (as in every OpenTelemetry SDK, code over
 * environment); the exporters read their own `OTEL_EXPORTER_OTLP_*` variables (endpoint,
 * headers, timeout, compression) when the section gives none.
 */
import { headerNameSchema, headerValueSchema } from 'gw/plugin';
import { z } from 'zod';

/** Where spans and metrics go, and how much is recorded. */
export const configSchema = z.strictObject({
  /**
   * OTLP/HTTP base URL (traces go to `<endpoint>/v1/traces`, metrics to `<endpoint>/v1/metrics`);
   * default `OTEL_EXPORTER_OTLP_ENDPOINT`, else http://localhost:4318.
   */
  endpoint: z.url({ protocol: /^https?$/, error: 'expected an http(s) URL, e.g. "http://127.0.0.1:4318"' }).optional(),
  /** `http/protobuf` (default) or `http/json`; default `OTEL_EXPORTER_OTLP_PROTOCOL`. */
  protocol: z.enum(['http/protobuf', 'http/json']).optional(),
  /** Headers sent with every export (an API key: write it as "${VAR}"); default `OTEL_EXPORTER_OTLP_HEADERS`. */
  headers: z.record(headerNameSchema, headerValueSchema).optional(),
  /** Share of new traces recorded, 0–1 (a request with a sampled `traceparent` follows its parent); default `OTEL_TRACES_SAMPLER_ARG`, else 1. */
  sampling_ratio: z.number().min(0).max(1).optional(),
  /** `service.name`; default `OTEL_SERVICE_NAME`, else "gw". */
  service_name: z.string().min(1).optional(),
  /** More resource attributes (`deployment.environment.name`…), over `OTEL_RESOURCE_ATTRIBUTES`. */
  resource_attributes: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  /** Export the GenAI metrics over OTLP too. */
  metrics: z.boolean().default(true),
  /** Metrics export interval, ms; default `OTEL_METRIC_EXPORT_INTERVAL`, else 60000. */
  metrics_interval_ms: z.number().int().min(100).optional(),
  /** Spans waiting for export at most; past it new spans are dropped (and counted). Default `OTEL_BSP_MAX_QUEUE_SIZE`, else 2048. */
  max_queue_size: z.number().int().min(1).max(1_000_000).optional(),
  /** Spans per export request; default `OTEL_BSP_MAX_EXPORT_BATCH_SIZE`, else 512. */
  max_export_batch_size: z.number().int().min(1).optional(),
  /** Longest wait before queued spans are exported, ms; default `OTEL_BSP_SCHEDULE_DELAY`, else 1000. */
  schedule_delay_ms: z.number().int().min(1).optional(),
  /** An export that takes longer is abandoned (its spans dropped and counted), ms; default `OTEL_EXPORTER_OTLP_TIMEOUT`, else 10000. */
  export_timeout_ms: z.number().int().min(1).optional(),
  /** Record message content (`gen_ai.input.messages`, `gen_ai.output.messages`, `gen_ai.system_instructions`): it may hold your users' data. */
  capture_content: z.boolean().default(false),
  /** With capture_content: each text part is cut to this many characters. */
  content_max_chars: z.number().int().min(1).max(1_048_576).default(2048),
  /** Header carrying the trace id on every answer ("" for none). */
  trace_header: z
    .string()
    .regex(/^$|^[a-z0-9-]+$/, 'expected a lower-case header name')
    .default('x-gw-trace-id'),
  /** Spans kept in memory for the console's trace view (`GET /v1/otel/spans`); 0 keeps none. */
  recent_spans: z.number().int().min(0).max(100_000).default(2000),
});

export type OtelConfig = z.output<typeof configSchema>;

/** The settings in force: the section, else the environment, else the defaults. */
export interface OtelSettings {
  /** Base URL, or undefined to let the exporters read `OTEL_EXPORTER_OTLP_*` (and default to localhost:4318). */
  endpoint: string | undefined;
  protocol: 'http/protobuf' | 'http/json';
  headers: Record<string, string> | undefined;
  samplingRatio: number;
  serviceName: string | undefined;
  resourceAttributes: Record<string, string | number | boolean>;
  metrics: boolean;
  metricsIntervalMs: number;
  maxQueueSize: number;
  maxExportBatchSize: number;
  scheduleDelayMs: number;
  exportTimeoutMs: number;
  captureContent: boolean;
  contentMaxChars: number;
  traceHeader: string;
  recentSpans: number;
  /** `OTEL_SDK_DISABLED=true`: record and export nothing. */
  disabled: boolean;
}

type Env = Readonly<Record<string, string | undefined>>;

/** Resolves the settings from the parsed section and `env` (process.env). */
export function resolveSettings(c: OtelConfig, env: Env): OtelSettings {
  const maxQueueSize = c.max_queue_size ?? int(env.OTEL_BSP_MAX_QUEUE_SIZE) ?? 2048;
  return {
    endpoint: c.endpoint,
    protocol:
      c.protocol ?? ((env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL)?.trim() === 'http/json' ? 'http/json' : 'http/protobuf'),
    headers: c.headers,
    samplingRatio: c.sampling_ratio ?? samplerRatio(env),
    serviceName: c.service_name,
    resourceAttributes: c.resource_attributes ?? {},
    metrics: c.metrics,
    metricsIntervalMs: c.metrics_interval_ms ?? int(env.OTEL_METRIC_EXPORT_INTERVAL) ?? 60_000,
    maxQueueSize,
    maxExportBatchSize: Math.min(maxQueueSize, c.max_export_batch_size ?? int(env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE) ?? 512),
    scheduleDelayMs: c.schedule_delay_ms ?? int(env.OTEL_BSP_SCHEDULE_DELAY) ?? 1000,
    exportTimeoutMs: c.export_timeout_ms ?? int(env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT) ?? int(env.OTEL_EXPORTER_OTLP_TIMEOUT) ?? 10_000,
    captureContent: c.capture_content,
    contentMaxChars: c.content_max_chars,
    traceHeader: c.trace_header,
    recentSpans: c.recent_spans,
    disabled: env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true',
  };
}

/**
 * The ratio `OTEL_TRACES_SAMPLER` / `OTEL_TRACES_SAMPLER_ARG` ask for: `always_off` 0,
 * `always_on` 1, the (parent-based) trace-id-ratio samplers their argument. gw always
 * follows a sampled parent, as the default `parentbased_*` samplers do.
 */
function samplerRatio(env: Env): number {
  const sampler = env.OTEL_TRACES_SAMPLER?.trim().toLowerCase();
  if (sampler === 'always_off' || sampler === 'parentbased_always_off') return 0;
  if (sampler === 'traceidratio' || sampler === 'parentbased_traceidratio') {
    const arg = Number(env.OTEL_TRACES_SAMPLER_ARG);
    return Number.isFinite(arg) && arg >= 0 && arg <= 1 ? arg : 1;
  }
  return 1;
}

function int(v: string | undefined): number | undefined {
  if (v === undefined || v.trim() === '') return undefined;
  const n = Number(v);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}
