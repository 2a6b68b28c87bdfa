/**
 * The alerts extension's bounds (issue 38, item 2): 100,000 made-up model names keep one
 * error-rate counter between them, counters are pruned as their window passes, every name in
 * an alert is escaped in Slack's text and blocks and in the JSON body, and an alert's delivery
 * to each webhook reads as delivered, failed, pending or unknown.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import test from 'ava';
import { MODEL_NOT_ALLOWED, MODEL_NOT_FOUND } from '../../core/error-codes.ts';
import type { FinishedRequest } from '../../core/hooks.ts';
import { createHooks } from '../../core/hooks.ts';
import alerts from '../../plugins/extensions/alerts/index.ts';
import { type AlertEvent, alertEvent, jsonBody, slackBody } from '../../plugins/extensions/alerts/event.ts';
import { MinuteCounts } from '../../plugins/extensions/alerts/minute-counts.ts';
import { deliveriesOf, deliveryHorizonMs } from '../../plugins/extensions/alerts/outcomes.ts';
import { configSchema } from '../../plugins/extensions/alerts/config.ts';
import { openLevelStore } from '../../plugins/stores/level/level.ts';
import { createLogger } from '../../server/log.ts';
import { requestContext } from '../helpers/request-context.ts';

const log = createLogger('error');

/** A finished chat request for `model`, answered `status`, failed with `error` when given. */
function finished(model: string, status: number, error?: ReturnType<typeof MODEL_NOT_FOUND>): FinishedRequest {
  const rc = requestContext(model);
  rc.status = status;
  return { id: 'r', route: 'chat', time: Date.now(), totalMs: 1, ttfbMs: 1, status, key: rc.key, model, rc, error, rawBody: undefined };
}

test('100,000 made-up model names with an error_rate rule scoped by model keep one counter between them (the (other) bucket)', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-alerts-'));
  const root = await openLevelStore(join(dir, 'data'));
  t.teardown(async () => {
    await root.close();
    await rm(dir, { recursive: true, force: true });
  });
  const hooks = createHooks();
  const gauges = new Map<string, () => unknown>();
  const noRoute = () => undefined;
  const config = configSchema.parse({
    webhooks: [{ name: 'ops', url: 'http://127.0.0.1:9/hook' }],
    // checked once an hour: the test drives the counters, not the timer
    check_interval_seconds: 3600,
    rules: [{ type: 'error_rate', scope: 'model', threshold_percent: 50, include_4xx: true }],
  });
  const handle = await alerts.setup({
    name: 'alerts',
    config,
    store: root.namespace('ext').namespace('alerts'),
    hooks,
    log,
    routes: { get: noRoute, post: noRoute, delete: noRoute } as never,
    gateway: { now: () => Date.now(), providers: () => [], keyNames: () => [] } as never,
    metrics: { counter: noRoute, gauge: (name: string, _help: string, collect: () => unknown) => void gauges.set(name, collect) },
    upstream: { observe: noRoute },
    resolvePath: (path: string) => path,
    secrets: { scrub: (text: string) => text, addDetector: noRoute, stored: (text: string) => text, redactStored: noRoute },
  });
  t.teardown(() => (handle as { close(): Promise<void> }).close());
  const targets = () =>
    (gauges.get('gw_alert_error_rate_targets')!() as Array<{ labels: { scope: string }; value: number }>).find((s) => s.labels.scope === 'model')!.value;

  // built first, so the heap measured below holds only what the counters keep
  const requests: FinishedRequest[] = [];
  for (let i = 0; i < 100_000; i++) {
    const model = `made-up-${i}-${'x'.repeat(200)}`;
    const denied = i % 2 === 1;
    const error = denied
      ? MODEL_NOT_ALLOWED({ key: 'default', model, canonical: model, patterns: ['gpt-*'] })
      : MODEL_NOT_FOUND({ what: `'${model}'`, near: [] });
    requests.push(finished(model, denied ? 403 : 404, error));
  }
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  for (const f of requests) hooks.onFinish.call(f);
  hooks.onFinish.call(finished('gpt-4o', 200));
  gc();
  gc();
  const grown = (process.memoryUsage().heapUsed - before) / 1048576;
  t.is(requests.length, 100_000, 'the requests outlive the measure: only what the counters keep is in it');
  t.log(`counters kept: ${targets()}; heap growth over 100,000 made-up names: ${grown.toFixed(1)} MiB`);
  t.is(targets(), 2, 'gpt-4o and the (other) bucket');
  t.true(grown < 16, `heap grew by ${grown.toFixed(1)} MiB`);
});

test('a counter is pruned once the longest window has passed without a request', (t) => {
  const counts = new MinuteCounts();
  const t0 = Date.UTC(2026, 0, 1, 12, 0, 30);
  counts.record('gpt-4o', 500, t0);
  counts.record('claude', 200, t0 + 4 * 60_000);
  counts.prune(t0 + 4 * 60_000, 5);
  t.deepEqual([...counts.targets()], ['gpt-4o', 'claude'], 'while a 5-minute window still reads its last request each is kept');
  t.is(counts.window('gpt-4o', 5, t0 + 4 * 60_000).requests, 1);
  counts.prune(t0 + 5 * 60_000, 5);
  t.deepEqual([...counts.targets()], ['claude']);
  counts.prune(t0 + 9 * 60_000, 5);
  t.is(counts.size, 0);
});

const HOSTILE = ['<!channel>', '<http://evil|click here>', 'a & b', '<@U123>'];

function eventAbout(model: string): AlertEvent {
  return alertEvent(`error_rate:0:model:${model}:above`, Date.UTC(2026, 0, 1), 'host:1', {
    rule: 'error_rate',
    severity: 'critical',
    title: `model '${model}' error rate 100.0% over the last 5 min (threshold 50%)`,
    subject: { model },
    details: { requests: 3, failed: 3 },
  });
}

for (const name of HOSTILE)
  test(`Slack's text and blocks escape &, < and > of a name: ${name}`, (t) => {
    const body = slackBody(eventAbout(name));
    const escaped = name.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    const texts = [body.text, ...JSON.stringify(body.blocks).match(/"text":"[^"]*"/g)!];
    for (const text of texts) t.false(/[<>]/.test(text.replace(/&(amp|lt|gt);/g, '')), text);
    t.true(body.text.includes(`model '${escaped}' error rate`), body.text);
    t.true(JSON.stringify(body.blocks).includes(`*model*: ${escaped}`));
    t.false(body.text.includes(name) && name !== escaped, 'the name is never in the text as sent');
  });

test('the JSON body writes <, >, & and the line separators as \\u escapes and parses back to the exact names', (t) => {
  const e = eventAbout('<!channel> & <http://evil|click here>\u2028');
  const raw = jsonBody(e);
  t.false(/[<>&\u2028\u2029]/.test(raw), raw);
  t.true(raw.includes('\\u003c!channel\\u003e \\u0026 \\u003chttp://evil|click here\\u003e\\u2028'));
  t.deepEqual(JSON.parse(raw), e);
});

test('an alert names at most 256 characters of a subject and 1024 of a title', (t) => {
  const e = eventAbout('m'.repeat(100_000));
  t.is(e.subject.model, `${'m'.repeat(256)}…`);
  t.is(e.title.length, 1025);
  t.true(e.title.endsWith('…'));
});

test('deliveries per webhook: the newest outcome of each alert, else pending while a delivery may run and unknown after', (t) => {
  const now = Date.UTC(2026, 0, 1, 12);
  const ops = configSchema.parse({ webhooks: [{ name: 'ops', url: 'http://127.0.0.1:9/' }] }).webhooks[0]!;
  const backup = { ...ops, name: 'backup', max_attempts: 1 };
  const fresh = alertEvent('budget:a', now - 1000, 'h:1', { rule: 'budget', severity: 'warning', title: 't', subject: {}, details: {} });
  const old = alertEvent('budget:b', now - deliveryHorizonMs(backup) - 1, 'h:1', { rule: 'budget', severity: 'warning', title: 't', subject: {}, details: {} });
  const outcomes = [
    [
      { alert: fresh.id, outcome: 'delivered' as const, status: 200, attempts: 2, time: '2026-01-01T11:59:59.500Z', instance: 'h:2' },
      { alert: fresh.id, outcome: 'failed' as const, status: 503, error: 'HTTP 503', attempts: 5, time: '2026-01-01T11:00:00.000Z', instance: 'h:1' },
    ],
    [
      {
        alert: old.id,
        outcome: 'failed' as const,
        status: 0,
        error: 'TypeError: ECONNREFUSED',
        attempts: 1,
        time: '2026-01-01T11:00:00.000Z',
        instance: 'h:1',
      },
    ],
  ];
  const [forFresh, forOld] = deliveriesOf([fresh, old], [ops, backup], outcomes, now);
  t.deepEqual(forFresh, [
    { webhook: 'ops', outcome: 'delivered', status: 200, attempts: 2, time: '2026-01-01T11:59:59.500Z' },
    { webhook: 'backup', outcome: 'pending' },
  ]);
  t.deepEqual(forOld, [
    { webhook: 'ops', outcome: 'pending' },
    { webhook: 'backup', outcome: 'failed', status: 0, error: 'TypeError: ECONNREFUSED', attempts: 1, time: '2026-01-01T11:00:00.000Z' },
  ]);
  t.true(deliveryHorizonMs(ops) > deliveryHorizonMs(backup));
});
