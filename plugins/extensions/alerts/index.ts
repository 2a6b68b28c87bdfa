/**
 * The `alerts` extension (docs/extensions.md "Alerts"): budgets crossing a threshold, circuits,
 * error rates, p95 latency, keys nearing expiry; once per crossing across instances (claim.ts),
 * to every webhook through a bounded queue (deliver.ts). Per request: onFinish's state lookup
 * and two counter bumps; the rest runs on the check timer. Names gw does not serve count under
 * OTHER_MODELS.
 */
import { badRequest, BUDGET_STATUS, type BudgetSettled, defineExtension, type FinishedRequest, isModelRefusal } from 'gw/plugin';
import { quoted } from 'gw/plugin/format';
import { checkBudget, checkSpend } from './budget-rule.ts';
import { type Check, CircuitCheck, ErrorRateCheck, ExpiryCheck, LatencyCheck } from './checks.ts';
import { configSchema } from './config.ts';
import { attempt, bodyFor } from './deliver.ts';
import { AlertEngine } from './engine.ts';
import { alertEvent } from './event.ts';
import { MinuteCounts } from './minute-counts.ts';
import { deliveriesOf } from './outcomes.ts';

const PLUGIN_NAME = 'alerts';
/** The one error-rate target of every request refused for its model: names gw does not serve, and names a key may not call. */
const OTHER_MODELS = '(other)';
/** `GET /v1/alerts` reads this many outcomes per webhook beyond twice the alerts it lists: room for deliveries that ended out of order. */
const OUTCOMES_SLACK = 100;

export default defineExtension({
  name: PLUGIN_NAME,
  configSchema,
  setup({ config, store, hooks, routes, gateway, log, metrics }) {
    const engine = new AlertEngine(config, store, gateway, log);
    const checks: Check[] = [];
    let byModel: MinuteCounts | undefined;
    let byProvider: MinuteCounts | undefined;
    const budgetThresholds: number[] = [];
    // the longest window each scope's rules read: a counter idle for longer is pruned
    const windows = { model: 0, provider: 0 };
    config.rules.forEach((rule, i) => {
      if (rule.type === 'budget') for (const t of rule.thresholds_percent) budgetThresholds.push(t);
      else if (rule.type === 'circuit') checks.push(new CircuitCheck(engine, rule));
      else if (rule.type === 'latency_p95') checks.push(new LatencyCheck(engine, rule, i));
      else if (rule.type === 'key_expiry') checks.push(new ExpiryCheck(engine, rule));
      else {
        const counts = rule.scope === 'model' ? (byModel ??= new MinuteCounts()) : (byProvider ??= new MinuteCounts());
        windows[rule.scope] = Math.max(windows[rule.scope], rule.window_minutes);
        checks.push(new ErrorRateCheck(engine, rule, i, counts));
      }
    });
    const thresholdsDesc = [...new Set(budgetThresholds)].sort((a, b) => b - a);

    if (thresholdsDesc.length || byModel || byProvider)
      hooks.onFinish.tap(PLUGIN_NAME, function observe(f: FinishedRequest) {
        if (thresholdsDesc.length) checkBudget(engine, thresholdsDesc, f);
        const rc = f.rc;
        if (!rc) return;
        const now = Date.now();
        byModel?.record(isModelRefusal(f.error) ? OTHER_MODELS : rc.servedModel, f.status, now);
        const provider = rc.provider ?? rc.error?.provider;
        if (provider !== undefined) byProvider?.record(provider, f.status, now);
      });

    // a key's budget or period changed (admin, reload): its spend against the new budget now
    if (thresholdsDesc.length)
      hooks.onNotice.tap(PLUGIN_NAME, (n) => {
        if (n.fact === BUDGET_STATUS) checkSpend(engine, thresholdsDesc, n.value as BudgetSettled);
      });
    const timer = setInterval(() => {
      const now = gateway.now();
      for (const c of checks) {
        try {
          c.run(now);
        } catch (err) {
          log.error({ err }, 'alerts: a check failed');
        }
      }
      // the counters run on real time, as onFinish records them
      byModel?.prune(Date.now(), windows.model);
      byProvider?.prune(Date.now(), windows.provider);
    }, config.check_interval_seconds * 1000);
    timer.unref();

    metrics.counter('gw_alerts_fired_total', 'Alerts this instance fired (after the cross-instance dedupe), by rule.', () =>
      Array.from(engine.fired, ([rule, value]) => ({ labels: { rule }, value })),
    );
    metrics.counter(
      'gw_alert_deliveries_total',
      'Webhook delivery outcomes: delivered, retried (an attempt failed, another follows), failed (gave up), dropped (queue full).',
      () => Object.entries(engine.deliveries.counts).map(([outcome, value]) => ({ labels: { outcome }, value })),
    );

    metrics.gauge(
      'gw_alert_error_rate_targets',
      'Models and providers the error-rate rules keep minute counters for (served ones with requests in the longest window, and one (other) model for every name gw does not serve)',
      () => [
        { labels: { scope: 'model' }, value: byModel?.size ?? 0 },
        { labels: { scope: 'provider' }, value: byProvider?.size ?? 0 },
      ],
    );

    routes.get('/v1/alerts', async (ctx) => {
      const raw = ctx.query.limit;
      const limit = raw === undefined ? Math.min(100, config.recent) : Number(raw);
      if (!Number.isInteger(limit) || limit < 1 || limit > config.recent)
        throw badRequest(`query parameter 'limit' must be an integer from 1 to ${config.recent} (the alerts kept)`, 'limit', quoted(String(raw)));
      const alerts = await engine.recent(limit);
      const read = Math.min(config.recent, 2 * limit + OUTCOMES_SLACK);
      const outcomes = await Promise.all(config.webhooks.map((w) => engine.outcomes.last(w.name, read)));
      const deliveries = deliveriesOf(alerts, config.webhooks, outcomes, gateway.now());
      ctx.body = {
        data: alerts.map((a, i) => ({ ...a, deliveries: deliveries[i] })),
        webhooks: config.webhooks.map((w, i) => ({ name: w.name, format: w.format, last_delivery: outcomes[i]![0] ?? null })),
        rules: config.rules,
      };
    });

    routes.post('/v1/alerts/test', async (ctx) => {
      const event = alertEvent(`test:${engine.instance}`, gateway.now(), engine.instance, {
        rule: 'test',
        severity: 'info',
        title: 'test alert from gw: this webhook receives gw alerts',
        subject: {},
        details: { sent_by: 'gw alerts test' },
      });
      const data = await Promise.all(
        config.webhooks.map(async (w) => {
          const r = await attempt(w, bodyFor(w, event));
          log.info({ webhook: w.name, alert: event.id, status: r.status, ok: r.ok }, 'alerts: test delivery');
          await engine.recordOutcome({
            webhook: w.name,
            alert: event.id,
            outcome: r.ok ? 'delivered' : 'failed',
            status: r.status,
            error: r.error,
            attempts: 1,
          });
          return { webhook: w.name, ok: r.ok, status: r.status, ...(r.error ? { error: r.error } : {}) };
        }),
      );
      ctx.body = { data };
    });

    return {
      async close() {
        clearInterval(timer);
        engine.deliveries.close();
      },
    };
  },
});

export type { AlertEvent } from './event.ts';
export type { AlertsConfig } from './config.ts';
