/** `[extensions.alerts]`: where alerts go (webhooks) and what raises one (rules). */
import { headerNameSchema, headerValueSchema } from 'gw/plugin';
import { z } from 'zod';

const name = z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'expected a name of letters, digits, "_", "-" or "." (at most 64)');
/** A model or provider name, or a pattern with `*` (`"gpt-*"`, `"*"`). */
const pattern = z.string().min(1, 'expected a name or a pattern with "*"');
const cooldown = z.number().positive().max(43_200, 'expected at most 43200 minutes (30 days)').optional();

/** A webhook: Slack's incoming-webhook body (`slack`) or the full event as JSON (`json`). */
const webhookSchema = z.strictObject({
  /** How deliveries are logged and listed (the URL never is: a Slack URL is itself a secret). */
  name,
  url: z.url({ protocol: /^https?$/, error: 'expected an http(s) URL, e.g. "https://hooks.slack.com/services/…"' }),
  format: z.enum(['slack', 'json'], { error: 'expected "slack" or "json"' }).default('json'),
  /** Sent with every delivery; put secrets in the environment: `Authorization = "Bearer ${ALERTS_TOKEN}"`. Never logged. */
  // checked here, so fetch never refuses one later with the value (a secret) in its message
  headers: z.record(headerNameSchema, headerValueSchema).default({}),
  /** One delivery attempt may take this long (connect to the end of the answer), ms. */
  timeout_ms: z.number().int().min(100).max(120_000).default(5000),
  /** Attempts per alert, the first included; retries wait 1 s, 2 s, 4 s… (base `retry_base_ms`), with jitter. */
  max_attempts: z.number().int().min(1).max(10).default(5),
  retry_base_ms: z.number().int().min(10).max(60_000).default(1000),
});

const budgetRule = z.strictObject({
  type: z.literal('budget'),
  /** Percentages of a key's budget in its period; each crossing alerts once per period (and budget amount). */
  thresholds_percent: z.array(z.number().positive().max(1000)).min(1, 'expected at least one percentage').max(10).default([50, 80, 100]),
});

const circuitRule = z.strictObject({
  type: z.literal('circuit'),
  /** Providers watched; default every provider. */
  providers: pattern.default('*'),
  cooldown_minutes: cooldown,
});

const errorRateRule = z.strictObject({
  type: z.literal('error_rate'),
  /** Per model (as served) or per provider. */
  scope: z.enum(['model', 'provider'], { error: 'expected "model" or "provider"' }),
  /** Which models or providers; default all. */
  match: pattern.default('*'),
  /** Share of failed requests that alerts, percent. */
  threshold_percent: z.number({ error: 'expected the share of failed requests that alerts, in percent (e.g. 20)' }).positive().max(100),
  /** The window the share is computed over, minutes (whole minutes of this instance's traffic). */
  window_minutes: z.number().int().min(1).max(60).default(5),
  /** Fewer requests in the window never alert (one failure in two requests is no outage). */
  min_requests: z.number().int().min(1).default(20),
  /** Count 4xx answers (refusals, upstream 4xx) as failures too; by default only 5xx count. */
  include_4xx: z.boolean().default(false),
  cooldown_minutes: cooldown,
});

const latencyRule = z.strictObject({
  type: z.literal('latency_p95'),
  /** Per provider: this instance's last 5 minutes of requests it answered (arrival to last byte). */
  scope: z.literal('provider', { error: 'expected "provider"' }).default('provider'),
  match: pattern.default('*'),
  threshold_ms: z.number({ error: 'expected the p95 latency that alerts, in ms (e.g. 5000)' }).positive(),
  /** Fewer answered requests in the last 5 minutes never alert. */
  min_requests: z.number().int().min(1).default(20),
  cooldown_minutes: cooldown,
});

const expiryRule = z.strictObject({
  type: z.literal('key_expiry'),
  /** Alert this long before a key's `expires_at`, hours. */
  before_hours: z
    .number()
    .positive()
    .max(24 * 365)
    .default(72),
});

/** One rule; `type` says which. */
export const ruleSchema = z.discriminatedUnion('type', [budgetRule, circuitRule, errorRateRule, latencyRule, expiryRule], {
  error: 'expected a rule with type "budget", "circuit", "error_rate", "latency_p95" or "key_expiry"',
});

export const configSchema = z
  .strictObject({
    webhooks: z.array(webhookSchema).min(1, 'expected at least one [[extensions.alerts.webhooks]]').max(20),
    rules: z.array(ruleSchema).default([
      { type: 'budget', thresholds_percent: [50, 80, 100] },
      { type: 'circuit', providers: '*' },
      { type: 'key_expiry', before_hours: 72 },
    ]),
    /** After an alert fires, the same alert (same rule and subject) stays quiet this long, minutes; a rule may set its own. */
    cooldown_minutes: z.number().positive().max(43_200).default(30),
    /** How often circuits, error rates, latency and key expiry are checked, seconds (budgets are checked as each request is charged). */
    check_interval_seconds: z.number().min(0.05).max(3600).default(5),
    /** Deliveries waiting at most; past it new ones are dropped (counted in gw_alert_deliveries_dropped_total). */
    queue_size: z.number().int().min(1).max(100_000).default(1000),
    /** Deliveries in flight at once, over all webhooks. */
    concurrency: z.number().int().min(1).max(64).default(4),
    /** Alerts kept for `GET /v1/alerts` and the console (in the store: shared by instances on Redis). */
    recent: z.number().int().min(1).max(100_000).default(500),
  })
  .superRefine((c, ctx) => {
    const seen = new Set<string>();
    c.webhooks.forEach((w, i) => {
      if (seen.has(w.name)) ctx.addIssue({ code: 'custom', path: ['webhooks', i, 'name'], message: `webhook name '${w.name}' is used twice` });
      seen.add(w.name);
    });
  });

export type AlertsConfig = z.output<typeof configSchema>;
export type Rule = z.output<typeof ruleSchema>;
export type Webhook = z.output<typeof webhookSchema>;
