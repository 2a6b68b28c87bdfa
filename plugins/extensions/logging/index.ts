/**
 * The `logging` extension: one pino line per completed request and one per failed one, at
 * its own `level` (independent of `-v`/LOG_LEVEL, so an operator can switch request logs
 * on without the core's debug noise). Never secrets: the key's name, not the key; message
 * content only when `level = "trace"`.
 *
 *   info  "request completed"  req, route, model, canonical_model, provider, key_name (never the key), status,
 *                              latency_ms, upstream_ms, prompt_tokens, completion_tokens (the
 *                              charge, as /v1/usage counts it), usage_estimated, cache_hit, stream
 *   warn  "request failed"     same identity fields + status, code, error, upstream_status
 *         (error for 5xx)      (+ prompt_tokens, completion_tokens, usage_estimated for a
 *                              stream charged for what it streamed before it ended early);
 *                              `error` is the log-safe message (the field and the rule, never
 *                              the request's content), the client's own at `level = "trace"`
 *   trace "request content"    the request's content view (instructions, messages) and the response body
 */
import { z } from 'zod';
import type { Logger } from 'pino';
import { accountOf, chargedUsage, defineExtension, type GatewayError, LEVELS, messageForStores, type RequestContext, type ResponseInfo } from 'gw/plugin';

const PLUGIN_NAME = 'logging';

const schema = z.strictObject({
  level: z.enum(LEVELS).default('info'),
});

const ms = (rc: RequestContext): number => Math.round((performance.now() - rc.startedAt) * 100) / 100;

/** What the trace line says of a request: its content view, through the guardrails' detectors when they scrub stored text (`stored`). */
function requestContent(rc: RequestContext, stored: (text: string) => string): unknown {
  const view = JSON.stringify(rc.content());
  const scrubbed = stored(view);
  if (scrubbed === view) return rc.content();
  try {
    return JSON.parse(scrubbed);
  } catch {
    return scrubbed;
  }
}

/** `out`: the request line's logger (no redaction); `content`: the trace line's; `stored`: text as gw stores it. */
function completed(out: Logger, content: Logger, stored: (text: string) => string) {
  return async function logCompleted(rc: RequestContext, info: ResponseInfo): Promise<void> {
    if (out.isLevelEnabled('info')) {
      const u = chargedUsage(rc);
      out.info(
        {
          req: rc.id,
          route: rc.route,
          model: rc.model,
          canonical_model: rc.servedModel,
          provider: rc.provider,
          attempts: rc.attempts,
          key_name: accountOf(rc),
          status: rc.status,
          latency_ms: ms(rc),
          upstream_ms: Math.round(rc.upstreamMs * 100) / 100,
          prompt_tokens: u?.prompt_tokens ?? 0,
          completion_tokens: u?.completion_tokens ?? 0,
          usage_estimated: rc.usageEstimated,
          cache_hit: rc.cacheHit,
          stream: rc.stream,
        },
        'request completed',
      );
    }
    if (content.isLevelEnabled('trace'))
      content.trace({ req: rc.id, request: requestContent(rc, stored), response: info.body === undefined ? undefined : stored(info.body) }, 'request content');
  };
}

function failed(out: Logger, content: Logger, stored: (text: string) => string) {
  return async function logFailed(rc: RequestContext, err: GatewayError): Promise<void> {
    const fields: Record<string, unknown> = {
      req: rc.id,
      route: rc.route,
      model: rc.model,
      canonical_model: rc.canonicalModel,
      provider: rc.provider ?? err.provider,
      key_name: accountOf(rc),
      status: err.status,
      latency_ms: ms(rc),
      code: err.code,
      error: messageForStores(err, out.isLevelEnabled('trace')),
      upstream_status: err.upstreamStatus,
    };
    // a stream that ended early is charged for what it streamed: say how much
    if (rc.partial) {
      fields.prompt_tokens = rc.usage?.prompt_tokens ?? 0;
      fields.completion_tokens = rc.usage?.completion_tokens ?? 0;
      fields.usage_estimated = rc.usageEstimated;
    }
    if (err.status >= 500) out.error(fields, 'request failed');
    else out.warn(fields, 'request failed');
    if (content.isLevelEnabled('trace')) content.trace({ req: rc.id, request: requestContent(rc, stored) }, 'request content');
  };
}

export default defineExtension({
  name: PLUGIN_NAME,
  configSchema: schema,
  setup({ config, log, hooks, secrets }) {
    const out = log.child({}, { level: config.level });
    // scalar lines skip pino's redaction, trace lines keep it; why: docs/benchmarks.md#logging-redaction
    const lines = out.child({}, { redact: [] });
    hooks.onResponse.tapPromise(PLUGIN_NAME, completed(lines, out, secrets.stored));
    hooks.onError.tapPromise(PLUGIN_NAME, failed(lines, out, secrets.stored));
  },
});
