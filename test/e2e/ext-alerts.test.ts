/**
 * The alerts extension (plugins/extensions/alerts): budget crossings alert once across two
 * instances on Redis, a circuit opening and an error rate reach a Slack-shaped webhook, a
 * hanging webhook adds nothing to request latency, retries stop at max_attempts and never
 * follow a 4xx, secrets in webhook headers are sent but never logged, bad sections fail to
 * load naming the key path, and `POST /v1/alerts/test` (`gw alerts test`) reaches every webhook;
 * each delivery's outcome reads the same from either instance.
 */
import test, { type ExecutionContext } from 'ava';
import { setTimeout as sleep } from 'node:timers/promises';
import { ADMIN_TOKEN, baseConfig, KEY, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { runCli } from '../helpers/cli.ts';
import { redisFor } from '../helpers/redis.ts';
import { replyJson, startUpstream, type MockUpstream, type Received } from '../helpers/upstream.ts';
import { admin, adminJson, HI, openaiUpstream, post, providerSection } from '../helpers/ext-helpers.ts';

const SECRET = 'alert-header-secret-0123456789';
process.env.GW_TEST_ALERT_SECRET = SECRET;

/** A webhook receiver answering `status` (or never, with `hang`); stopped at teardown. */
async function receiver(t: ExecutionContext, opts: { status?: number; hang?: boolean } = {}): Promise<MockUpstream> {
  const r = await startUpstream((_req, res) => {
    if (opts.hang) return;
    res.writeHead(opts.status ?? 200);
    res.end('ok');
  });
  t.teardown(() => r.close());
  return r;
}

/** `[extensions.alerts]` with one webhook to `r`, the given rules, checked every 100 ms. */
function alertsSection(r: MockUpstream, rules: string, webhook = ''): string {
  return `[extensions.alerts]
check_interval_seconds = 0.1

[[extensions.alerts.webhooks]]
name = "ops"
url = "${r.origin}/hook/T000/B000/xoxb-path-secret"
headers = { Authorization = "Bearer \${GW_TEST_ALERT_SECRET}" }
${webhook}

${rules}
`;
}

const PRICING = '[pricing."gpt-4o"]\ninput_per_mtok = 2.5\noutput_per_mtok = 10.0\n';
/** Every request costs 1000 prompt tokens × $2.5/Mtok = $0.0025 (the mock's usage). */
const usage1000 = () => ({ prompt_tokens: 1000, completion_tokens: 0 });
const CHAT = { model: 'gpt-4o', messages: HI, max_tokens: 1 };

/** Polls until `check` holds, or fails the test after `limitMs`. */
async function until(t: ExecutionContext, what: string, limitMs: number, check: () => boolean): Promise<void> {
  const t0 = Date.now();
  while (!check()) {
    if (Date.now() - t0 > limitMs) return void t.fail(`${what}: not seen within ${limitMs} ms`);
    await sleep(20);
  }
}

const events = (r: MockUpstream) => r.received.map((x: Received) => x.json);

test('two instances on Redis: a key crossing 80% of its budget alerts exactly once, and 50% once', async (t) => {
  const redis = await redisFor(t);
  if (!redis) return;
  const up = await openaiUpstream({ usageOf: usage1000 });
  const hook = await receiver(t);
  const toml = baseConfig(
    `${providerSection(up)}\n${PRICING}\n[store]\nurl = "${redis.url}"\n\n[extensions.budget]\ndefault_budget = 100\n\n${alertsSection(hook, '[[extensions.alerts.rules]]\ntype = "budget"\n')}`,
  ).replace(`key = "${KEY}"\n`, `key = "${KEY}"\nbudget = 0.025\nbudget_period = "monthly"\n`);
  const gws: TestGateway[] = [];
  t.teardown(async () => {
    for (const g of gws) await g.stop();
    await up.close();
  });
  gws.push(await startGateway(toml), await startGateway(toml));
  // 9 requests of $0.0025 against $0.025 (90%), alternating between the instances: each
  // threshold is reached on one and then seen exceeded on the other, which must stay quiet
  for (let i = 0; i < 9; i++) t.is((await post(gws[i % 2]!, '/v1/chat/completions', CHAT)).status, 200);
  await until(t, 'the 80% alert', 5000, () => events(hook).some((e) => e.details?.threshold_percent === 80));
  await sleep(500); // room for a duplicate to show up
  const budget = events(hook).filter((e) => e.rule === 'budget');
  t.deepEqual(budget.map((e) => e.details.threshold_percent).sort(), [50, 80]);
  const e80 = budget.find((e) => e.details.threshold_percent === 80);
  t.like(e80, { rule: 'budget', severity: 'warning', subject: { key: 'default' }, details: { budget_usd: 0.025, period: 'monthly' } });
  t.true(e80.details.spent_usd >= 0.02 && e80.details.spent_usd < 0.0225 + 1e-9, `spent ${e80.details.spent_usd}`);
  t.regex(e80.details.resets_at, /^\d{4}-\d\d-01T00:00:00Z$/);
  t.is(hook.received[0]!.headers.authorization, `Bearer ${SECRET}`);
  // the ring is shared: either instance lists both alerts, newest first
  const listed = await admin(gws[1]!, 'GET', '/v1/alerts');
  t.is(listed.status, 200);
  t.deepEqual(
    listed.body.data.map((e: any) => e.details.threshold_percent),
    [80, 50],
  );
  t.like(listed.body.webhooks, [{ name: 'ops', format: 'json', last_delivery: { outcome: 'delivered', status: 200, attempts: 1 } }]);
  // each delivery's outcome is in the shared store: either instance lists it, whichever delivered
  for (const g of gws) {
    const alerts = (await admin(g, 'GET', '/v1/alerts')).body.data;
    for (const e of alerts) t.like(e.deliveries, [{ webhook: 'ops', outcome: 'delivered', status: 200, attempts: 1 }]);
  }
  // neither the header secret nor the webhook URL's path reaches a log line
  for (const g of gws) for (const line of g.logs) t.false(line.includes(SECRET) || line.includes('xoxb-path-secret'), line);
});

test('a provider whose circuit opens alerts in Slack shape, its error rate too, and the circuit closing resolves', async (t) => {
  let failing = true;
  const up = await startUpstream((_req, res) => (failing ? replyJson(res, 500, { error: { message: 'boom' } }) : replyJson(res, 200, CHAT_ANSWER)));
  const hook = await receiver(t);
  const gw = await startGateway(
    baseConfig(
      `${providerSection(up)}\n[routing]\nbreaker_failures = 2\nbreaker_cooldown_seconds = 0.3\n\n${alertsSection(
        hook,
        '[[extensions.alerts.rules]]\ntype = "circuit"\n\n[[extensions.alerts.rules]]\ntype = "error_rate"\nscope = "model"\nthreshold_percent = 50\nmin_requests = 3\n',
        'format = "slack"',
      )}`,
    ),
    { level: 'info' },
  );
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  const statuses = [];
  for (let i = 0; i < 3; i++) statuses.push((await post(gw, '/v1/chat/completions', CHAT)).status);
  // two 502s open the circuit; the third is refused (503) or, past the 0.3 s cooldown, the failing probe's 502
  t.deepEqual(statuses.slice(0, 2), [502, 502]);
  await until(t, 'the circuit and error-rate alerts', 5000, () => hook.received.length >= 2);
  const texts = events(hook).map((e) => e.text);
  const open = events(hook).find((e) => /circuit opened/.test(e.text));
  t.truthy(open, texts.join(' | '));
  // Slack's incoming-webhook message: a text line and mrkdwn blocks
  t.is(typeof open.text, 'string');
  t.regex(open.text, /^:red_circle: \[gw critical\] provider 'up' circuit opened/);
  t.deepEqual(
    open.blocks.map((b: any) => b.type),
    ['section', 'section', 'context'],
  );
  t.is(open.blocks[0].text.type, 'mrkdwn');
  t.regex(open.blocks[1].text.text, /\*provider\*: up/);
  t.true(
    texts.some((x) => /model 'gpt-4o' error rate 100\.0%/.test(x)),
    texts.join(' | '),
  );
  // the upstream recovers: the half-open probe succeeds and the circuit closes
  failing = false;
  await sleep(350);
  t.is((await post(gw, '/v1/chat/completions', CHAT)).status, 200);
  await until(t, 'the circuit-closed alert', 5000, () => events(hook).some((e) => /circuit closed/.test(e.text)));
  t.true(gw.logs.some((l) => l.includes('"msg":"alerts: delivered"') && l.includes('"webhook":"ops"')));
});

const CHAT_ANSWER = {
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model: 'gpt-4o',
  choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 1000, completion_tokens: 0, total_tokens: 1000 },
};

/** Median of `xs`. */
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Times one request through `gw`, ms. */
async function timedOne(gw: TestGateway): Promise<number> {
  const t0 = performance.now();
  const r = await post(gw, '/v1/chat/completions', CHAT);
  await r.text();
  if (r.status !== 200) throw new Error(`HTTP ${r.status}`);
  return performance.now() - t0;
}

test('a webhook that never answers adds nothing to request latency', async (t) => {
  const hang = await receiver(t, { hang: true });
  const up = await openaiUpstream({ usageOf: usage1000 });
  // ten thresholds 10%…100%: with $0.0025 per request of $0.025, every request crosses one (two warm-ups, then eight)
  const rules = '[[extensions.alerts.rules]]\ntype = "budget"\nthresholds_percent = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100]\n';
  const keyed = (extra: string) =>
    baseConfig(`${providerSection(up)}\n${PRICING}\n[extensions.budget]\ndefault_budget = 100\n${extra}`).replace(
      `key = "${KEY}"\n`,
      `key = "${KEY}"\nbudget = 0.025\n`,
    );
  const plain = await startGateway(keyed(''));
  const alerting = await startGateway(keyed(alertsSection(hang, rules, 'timeout_ms = 20000\nmax_attempts = 1')));
  t.teardown(async () => {
    await plain.stop();
    await alerting.stop();
    await up.close();
  });
  // warm both, then alternate, so the shared machine's load falls on both alike
  for (const g of [plain, alerting, plain, alerting]) await timedOne(g);
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < 8; i++) {
    a.push(await timedOne(alerting));
    b.push(await timedOne(plain));
  }
  await until(t, 'deliveries reaching the hanging webhook', 5000, () => hang.received.length >= 4);
  t.log(`median ms: without alerts ${median(b).toFixed(1)}, with a hanging webhook ${median(a).toFixed(1)}; slowest with ${Math.max(...a).toFixed(1)}`);
  // a request that waited for a delivery would take the 20 s timeout
  t.true(Math.max(...a) < 2000, `slowest request with alerts: ${Math.max(...a)} ms`);
  t.true(median(a) < median(b) * 3 + 50, `median with alerts ${median(a)} ms vs ${median(b)} ms without`);
});

test('retries stop at max_attempts with backoff; a 4xx answer is not retried; POST /v1/alerts/test reaches each webhook', async (t) => {
  const down = await receiver(t, { status: 503 });
  const refusing = await receiver(t, { status: 400 });
  const up = await openaiUpstream({ usageOf: usage1000 });
  const toml = baseConfig(
    `${providerSection(up)}\n${PRICING}\n[extensions.budget]\ndefault_budget = 100\n\n${alertsSection(
      down,
      '[[extensions.alerts.rules]]\ntype = "budget"\nthresholds_percent = [50]\n',
      `max_attempts = 3\nretry_base_ms = 50\n\n[[extensions.alerts.webhooks]]\nname = "refusing"\nurl = "${refusing.origin}/hook"\nretry_base_ms = 50\n`,
    )}`,
  ).replace(`key = "${KEY}"\n`, `key = "${KEY}"\nbudget = 0.004\n`);
  const gw = await startGateway(toml, { level: 'info' });
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  t.is((await post(gw, '/v1/chat/completions', CHAT)).status, 200);
  await until(t, 'three attempts', 5000, () => down.received.length >= 3);
  await sleep(600); // a 4th attempt would come 200 ms after the 3rd
  t.is(down.received.length, 3);
  t.is(refusing.received.length, 1);
  t.deepEqual(new Set(down.received.map((r) => r.json.id)).size, 1, 'every attempt carries the same alert id');
  const attempts = gw.logs.filter((l) => l.includes('alerts: delivery failed'));
  t.is(attempts.length, 4, attempts.join('\n'));
  t.true(attempts.some((l) => l.includes('giving up') && l.includes('"attempt":3') && l.includes('"status":503')));
  const metrics = await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }).then((r) => r.text());
  t.regex(metrics, /gw_alert_deliveries_total\{outcome="retried"\} 2/);
  t.regex(metrics, /gw_alert_deliveries_total\{outcome="failed"\} 2/);
  t.regex(metrics, /gw_alerts_fired_total\{rule="budget"\} 1/);

  const sent = await adminJson(gw, 'POST', '/v1/alerts/test', {});
  t.is(sent.status, 200);
  t.deepEqual(sent.body.data, [
    { webhook: 'ops', ok: false, status: 503, error: 'HTTP 503' },
    { webhook: 'refusing', ok: false, status: 400, error: 'HTTP 400' },
  ]);
  t.is(down.received.at(-1)!.json.rule, 'test');
  t.is(refusing.received.at(-1)!.json.rule, 'test');
});

test('a key nearing expiry alerts once', async (t) => {
  const hook = await receiver(t);
  const up = await openaiUpstream();
  const soon = new Date(Date.now() + 5 * 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const gw = await startGateway(
    baseConfig(`${providerSection(up)}\n${alertsSection(hook, '[[extensions.alerts.rules]]\ntype = "key_expiry"\nbefore_hours = 24\n')}`).replace(
      `key = "${KEY}"\n`,
      `key = "${KEY}"\nexpires_at = "${soon}"\n`,
    ),
  );
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  await until(t, 'the expiry alert', 5000, () => hook.received.length >= 1);
  await sleep(400); // four more checks
  t.is(hook.received.length, 1);
  t.like(hook.received[0]!.json, { rule: 'key_expiry', severity: 'warning', subject: { key: 'default' }, details: { expires_at: soon } });
  t.regex(hook.received[0]!.json.title, /key 'default' expires in 5 h/);
});

for (const [what, section, expected] of [
  ['no webhook', '[extensions.alerts]\n', /extensions\.alerts\.webhooks/],
  [
    'a bad format',
    '[[extensions.alerts.webhooks]]\nname = "a"\nurl = "http://127.0.0.1:1/"\nformat = "teams"\n',
    /extensions\.alerts\.webhooks\[0\]\.format: expected "slack" or "json"/,
  ],
  [
    'a URL that is no URL',
    '[[extensions.alerts.webhooks]]\nname = "a"\nurl = "hooks.slack.com"\n',
    /extensions\.alerts\.webhooks\[0\]\.url: expected an http\(s\) URL/,
  ],
  [
    'an unknown rule type',
    '[[extensions.alerts.webhooks]]\nname = "a"\nurl = "http://127.0.0.1:1/"\n[[extensions.alerts.rules]]\ntype = "disk"\n',
    /extensions\.alerts\.rules\[0\]\.type: expected a rule with type "budget"/,
  ],
  [
    'an error-rate rule without its threshold',
    '[[extensions.alerts.webhooks]]\nname = "a"\nurl = "http://127.0.0.1:1/"\n[[extensions.alerts.rules]]\ntype = "error_rate"\nscope = "model"\n',
    /extensions\.alerts\.rules\[0\]\.threshold_percent: expected the share of failed requests that alerts/,
  ],
  [
    'a header value with a line break',
    '[[extensions.alerts.webhooks]]\nname = "a"\nurl = "http://127.0.0.1:1/"\nheaders = { X-Token = "abc\\ndef" }\n',
    /extensions\.alerts\.webhooks\[0\]\.headers\.X-Token: expected a value HTTP can send in a header/,
  ],
  [
    'two webhooks with one name',
    '[[extensions.alerts.webhooks]]\nname = "a"\nurl = "http://127.0.0.1:1/"\n[[extensions.alerts.webhooks]]\nname = "a"\nurl = "http://127.0.0.1:2/"\n',
    /extensions\.alerts\.webhooks\[1\]\.name: webhook name 'a' is used twice/,
  ],
] as const) {
  test(`a config with ${what} in [extensions.alerts] does not load, naming the key path`, async (t) => {
    const body = section.startsWith('[extensions.alerts]') ? section : `[extensions.alerts]\n${section}`;
    const err = await t.throwsAsync(startGateway(baseConfig(body)));
    t.regex(err!.message, expected);
  });
}

test('gw alerts test: one line per webhook, non-zero exit when one fails; gw alerts list; without the extension one clear line', async (t) => {
  const ok = await receiver(t);
  const down = await receiver(t, { status: 503 });
  const up = await openaiUpstream();
  const gw = await startGateway(
    baseConfig(
      `${providerSection(up)}\n${alertsSection(ok, '', `format = "slack"\n\n[[extensions.alerts.webhooks]]\nname = "backup"\nurl = "${down.origin}/hook"\nmax_attempts = 1\n`)}`,
    ),
  );
  const plain = await startGateway(baseConfig(providerSection(up)));
  t.teardown(async () => {
    await gw.stop();
    await plain.stop();
    await up.close();
  });
  const env = (g: TestGateway) => ({ GW_URL: g.url, GW_ADMIN_TOKEN: ADMIN_TOKEN });
  const sent = await runCli(['alerts', 'test'], env(gw));
  t.is(sent.code, 1, sent.stderr);
  t.deepEqual(sent.stdout.trim().split('\n'), ['ops: delivered (HTTP 200)', 'backup: FAILED (HTTP 503)']);
  t.regex(sent.stderr, /1 of 2 webhook\(s\) did not take the test alert: backup/);
  t.regex(ok.received[0]!.json.text, /test alert from gw/);
  t.is(down.received[0]!.json.rule, 'test');
  const listed = await runCli(['alerts', 'list', '--json'], env(gw));
  t.is(listed.code, 0, listed.stderr);
  t.deepEqual(JSON.parse(listed.stdout).data, []);
  const off = await runCli(['alerts', 'test'], env(plain));
  t.is(off.code, 1);
  t.regex(off.stderr, /the alerts extension is not enabled: add \[extensions\.alerts\]/);
});

test('a provider whose p95 latency passes the threshold alerts (the last 5 minutes on this instance)', async (t) => {
  const hook = await receiver(t);
  const up = await openaiUpstream({ delayMs: 120 });
  const gw = await startGateway(
    baseConfig(`${providerSection(up)}\n${alertsSection(hook, '[[extensions.alerts.rules]]\ntype = "latency_p95"\nthreshold_ms = 100\nmin_requests = 3\n')}`),
  );
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  for (let i = 0; i < 3; i++) t.is((await post(gw, '/v1/chat/completions', CHAT)).status, 200);
  await until(t, 'the latency alert', 5000, () => hook.received.length >= 1);
  const e = hook.received[0]!.json;
  t.like(e, { rule: 'latency_p95', severity: 'warning', subject: { provider: 'up' }, details: { threshold_ms: 100, requests: 3, window_minutes: 5 } });
  t.true(e.details.p95_ms >= 100, `p95 ${e.details.p95_ms} ms`);
  await sleep(300);
  t.is(hook.received.length, 1, 'once per crossing');
});

test('error rates are counted on real time whatever the gateway clock (a test clock ten days ahead)', async (t) => {
  const hook = await receiver(t);
  const up = await startUpstream((_req, res) => replyJson(res, 500, { error: { message: 'boom' } }));
  const gw = await startGateway(
    baseConfig(
      `${providerSection(up)}\n${alertsSection(hook, '[[extensions.alerts.rules]]\ntype = "error_rate"\nscope = "provider"\nthreshold_percent = 50\nmin_requests = 2\n')}`,
    ),
    { clock: () => Date.now() + 10 * 86_400_000 },
  );
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  for (let i = 0; i < 2; i++) t.is((await post(gw, '/v1/chat/completions', CHAT)).status, 502);
  await until(t, 'the error-rate alert', 5000, () => hook.received.length >= 1);
  t.like(hook.received[0]!.json, { rule: 'error_rate', severity: 'critical', subject: { provider: 'up' }, details: { requests: 2, failed: 2 } });
});
