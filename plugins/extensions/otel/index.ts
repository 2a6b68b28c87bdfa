/**
 * The `otel` extension: OpenTelemetry traces and metrics of every gateway request, named by
 * the GenAI semantic conventions, exported over OTLP/HTTP to a Collector, Jaeger, Tempo or
 * any OTLP backend (docs/opentelemetry.md).
 *
 *   a SERVER span per gateway request, child of the client's `traceparent`;
 *   a CLIENT span per upstream attempt (retries, fallbacks), whose `traceparent` the
 *   upstream receives; usage, cost, finish reasons, first-token time (tracer.ts);
 *   the GenAI histograms (metrics.ts); the trace id in `x-gw-trace-id` and the request log.
 *
 * Export never slows or fails a request: a bounded queue, drops counted in /metrics
 * (`gw_otel_spans_dropped_total`). Every process (each `--workers` worker, each instance)
 * exports its own spans and metrics. Admin: GET /v1/otel/spans (recent.ts).
 */
import { defineExtension, redactUrl } from 'gw/plugin';
import { configSchema, resolveSettings } from './config.ts';
import { parseSpanQuery, spansAnswer } from './recent.ts';
import { createTelemetry } from './telemetry.ts';
import { RequestTracer } from './tracer.ts';

const PLUGIN_NAME = 'otel';

export default defineExtension({
  name: PLUGIN_NAME,
  configSchema,
  setup({ config, hooks, routes, gateway, metrics, log, secrets }) {
    const s = resolveSettings(config, process.env);
    if (s.disabled) {
      log.warn('OTEL_SDK_DISABLED=true: the otel extension records and exports nothing');
      return;
    }
    const telemetry = createTelemetry(s, gateway.version);
    const account = telemetry.account;
    new RequestTracer(telemetry.spans, s, telemetry.metrics, account, secrets.stored).tap(hooks, PLUGIN_NAME);

    metrics.counter('gw_otel_spans_exported_total', 'Spans the OTLP collector accepted', () => account.exported);
    metrics.counter(
      'gw_otel_spans_dropped_total',
      'Spans dropped: the export queue was full (queue_full) or their export failed or timed out (export_failed)',
      () => [
        { labels: { reason: 'queue_full' }, value: account.droppedQueueFull },
        { labels: { reason: 'export_failed' }, value: account.droppedExportFailed },
      ],
    );
    metrics.gauge('gw_otel_span_queue_size', 'Spans waiting for export', () => account.queued());

    routes.get('/v1/otel/spans', async (ctx) => {
      const answer = spansAnswer(account.recent(), parseSpanQuery(ctx.query));
      if (answer.omitted > 0) ctx.set('x-gw-traces-omitted', String(answer.omitted));
      ctx.type = 'application/json';
      ctx.body = answer.text;
    });

    log.info(
      {
        endpoint: s.endpoint ? redactUrl(s.endpoint) : '(OTEL_EXPORTER_OTLP_ENDPOINT or http://localhost:4318)',
        protocol: s.protocol,
        sampling_ratio: s.samplingRatio,
        metrics: s.metrics,
      },
      'exporting traces over OTLP',
    );
    return {
      async close() {
        await telemetry.shutdown();
      },
    };
  },
});
