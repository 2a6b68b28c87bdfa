/**
 * Alerts bounded and escaped (issue 38, item 2), through real sockets: a webhook answering
 * 300 MB costs gw 64 KiB of reading and its health; made-up model names refused with 404 or
 * 403 alert as one `(other)` model, never by name; names in an alert reach Slack's text and
 * blocks and the JSON body escaped; `GET /v1/alerts` and `gw alerts list` show what became of
 * each alert at each webhook.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import test, { type ExecutionContext } from 'ava';
import { alertsSection, errorRateRule } from '../helpers/alerts-config.ts';
import { runCli } from '../helpers/cli.ts';
import { ADMIN_TOKEN, baseConfig, startGateway } from '../helpers/gateway.ts';
import { replyJson, startUpstream, type MockUpstream } from '../helpers/upstream.ts';
import { admin, adminJson, HI, post, providerSection } from '../helpers/ext-helpers.ts';

/** A webhook receiver keeping each body as received (raw text); answers `status`. */
async function receiver(t: ExecutionContext, status = 200): Promise<MockUpstream> {
  const r = await startUpstream((_req, res) => {
    res.writeHead(status);
    res.end('ok');
  });
  t.teardown(() => r.close());
  return r;
}

/** Polls until `check` holds, or fails the test after `limitMs`. */
async function until(t: ExecutionContext, what: string, limitMs: number, check: () => boolean | Promise<boolean>): Promise<void> {
  const t0 = Date.now();
  while (!(await check())) {
    if (Date.now() - t0 > limitMs) return void t.fail(`${what}: not seen within ${limitMs} ms`);
    await sleep(20);
  }
}

const MB = 1_000_000;

test('a webhook answering 300 MB: the delivery reads at most its cap, and gw stays healthy', async (t) => {
  const ANSWER = 300 * MB;
  let written = 0;
  let closed: Promise<unknown> = Promise.resolve();
  // answers as fast as the socket takes it, with the length announced or not (chunked)
  const server = createServer((req, res) => {
    req.resume();
    const announce = req.url === '/announced';
    closed = once(res, 'close');
    res.writeHead(200, announce ? { 'content-length': String(ANSWER) } : {});
    const chunk = Buffer.alloc(64 * 1024, 120);
    const pump = () => {
      while (written < ANSWER && !res.destroyed) {
        written += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      if (!res.destroyed) res.end();
    };
    pump();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const gw = await startGateway(
    baseConfig(
      `[providers.mock]\nmodels = ["mock-a"]\n\n${alertsSection(
        [
          { name: 'chunked', url: `${origin}/chunked` },
          { name: 'announced', url: `${origin}/announced` },
        ],
        '',
      )}`,
    ),
  );
  t.teardown(() => gw.stop());
  for (const name of ['chunked', 'announced']) {
    written = 0;
    const t0 = performance.now();
    const sent = await adminJson(gw, 'POST', '/v1/alerts/test', {});
    const ms = performance.now() - t0;
    await closed;
    t.log(
      `${name}: the receiver wrote ${(written / MB).toFixed(1)} MB of its ${ANSWER / MB} MB answer before gw closed the connection; the delivery took ${ms.toFixed(0)} ms`,
    );
    t.like(
      sent.body.data.find((d: { webhook: string }) => d.webhook === name),
      { ok: true, status: 200 },
    );
    // the socket buffers on both sides hold a few MB: a read to the end would be all 300
    t.true(written < 32 * MB, `${name}: ${written} bytes written`);
    const t1 = performance.now();
    t.is((await fetch(`${gw.url}/health`)).status, 200);
    t.true(performance.now() - t1 < 1000, 'health answers at once');
  }
});

/** `[extensions.alerts]` with a Slack webhook and a JSON one, and an error-rate rule by model counting 4xx answers. */
function slackAndJson(slack: MockUpstream, json: MockUpstream): string {
  return alertsSection(
    [
      { name: 'slack', url: `${slack.origin}/hook`, more: 'format = "slack"\n' },
      { name: 'json', url: `${json.origin}/hook` },
    ],
    errorRateRule('include_4xx = true\n'),
  );
}

const HOSTILE = ['<!channel>', '<http://evil|click here>'];

test('made-up model names (404, and 403 for a key limited to some models) alert as one (other) model: no name a client chose reaches an alert', async (t) => {
  const up = await startUpstream((_r, res) => replyJson(res, 200, {}));
  t.teardown(() => up.close());
  const slack = await receiver(t);
  const json = await receiver(t);
  const gw = await startGateway(
    baseConfig(`${providerSection(up)}\n${slackAndJson(slack, json)}`).replace('[keys.second]\n', '[keys.second]\nmodels = ["gpt-*"]\n'),
  );
  t.teardown(() => gw.stop());
  for (const model of [...HOSTILE, 'made-up-1', 'made-up-2']) t.is((await post(gw, '/v1/chat/completions', { model, messages: HI })).status, 404);
  const denied = await post(gw, '/v1/chat/completions', { model: '<!here>', messages: HI }, 'sk-test-key-second-0123456789abcdef');
  t.is(denied.status, 403);
  await until(t, 'the (other) alert', 5000, () => slack.received.length >= 1 && json.received.length >= 1);
  await sleep(300); // room for an alert per name to show up
  t.is(slack.received.length, 1, slack.received.map((r) => r.body).join('\n'));
  const event = json.received[0]!.json;
  t.like(event, { rule: 'error_rate', subject: { model: '(other)' } });
  t.true(event.details.requests >= 2 && event.details.failed === event.details.requests, JSON.stringify(event.details));
  t.regex(slack.received[0]!.json.text, /model '\(other\)' error rate 100\.0%/);
  for (const r of [...slack.received, ...json.received]) t.false(/channel|evil|here|made-up/.test(r.body), r.body);
  const metrics = await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }).then((r) => r.text());
  t.regex(metrics, /gw_alert_error_rate_targets\{scope="model"\} 1\n/);
});

test("names in an alert reach Slack's text and blocks, and the JSON body, escaped", async (t) => {
  // models gw serves, named by an operator as a client would never be allowed to: failing upstream
  const up = await startUpstream((_r, res) => replyJson(res, 500, { error: { message: 'boom' } }));
  t.teardown(() => up.close());
  const slack = await receiver(t);
  const json = await receiver(t);
  const gw = await startGateway(baseConfig(`${providerSection(up, HOSTILE)}\n${slackAndJson(slack, json)}`));
  t.teardown(() => gw.stop());
  for (const model of HOSTILE) for (let i = 0; i < 2; i++) t.is((await post(gw, '/v1/chat/completions', { model, messages: HI })).status, 502);
  await until(t, 'an alert per model at each webhook', 5000, () => slack.received.length >= 2 && json.received.length >= 2);
  for (const r of slack.received) {
    const texts = [r.json.text, ...r.json.blocks.flatMap((b: any) => (b.text ? [b.text.text] : b.elements.map((e: any) => e.text)))];
    for (const text of texts) t.false(/[<>]/.test(text), text);
  }
  const slackTexts = slack.received.map((r) => r.json.text).sort();
  t.regex(slackTexts[0], /model '&lt;!channel&gt;' error rate 100\.0%/);
  t.regex(slackTexts[1], /model '&lt;http:\/\/evil\|click here&gt;' error rate 100\.0%/);
  for (const r of json.received) {
    t.false(/[<>&]/.test(r.body), r.body);
    t.true(HOSTILE.includes(r.json.subject.model), 'parsed, the JSON body names the model exactly');
    t.regex(r.body, /\\u003c/);
  }
});

test('GET /v1/alerts and gw alerts list show each delivery per webhook: delivered, failed with its status, and each webhook’s last delivery', async (t) => {
  const up = await startUpstream((_r, res) => replyJson(res, 500, { error: { message: 'boom' } }));
  t.teardown(() => up.close());
  const ok = await receiver(t);
  const down = await receiver(t, 503);
  const gw = await startGateway(
    baseConfig(
      `${providerSection(up)}\n${alertsSection(
        [
          { name: 'ops', url: `${ok.origin}/hook` },
          { name: 'backup', url: `${down.origin}/hook`, more: 'max_attempts = 2\nretry_base_ms = 20\n' },
        ],
        errorRateRule('include_4xx = true\n'),
      )}`,
    ),
  );
  t.teardown(() => gw.stop());
  for (let i = 0; i < 2; i++) t.is((await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI })).status, 502);
  await until(t, 'both deliveries ended', 5000, async () => {
    const listed = await admin(gw, 'GET', '/v1/alerts');
    return listed.body.data[0]?.deliveries.every((d: { outcome: string }) => d.outcome !== 'pending') ?? false;
  });
  const listed = await admin(gw, 'GET', '/v1/alerts');
  t.is(listed.status, 200);
  const [alert] = listed.body.data;
  t.like(alert.deliveries, [
    { webhook: 'ops', outcome: 'delivered', status: 200, attempts: 1 },
    { webhook: 'backup', outcome: 'failed', status: 503, error: 'HTTP 503', attempts: 2 },
  ]);
  for (const d of alert.deliveries) t.regex(d.time, /^\d{4}-\d\d-\d\dT/);
  t.like(listed.body.webhooks, [
    { name: 'ops', last_delivery: { alert: alert.id, outcome: 'delivered', status: 200 } },
    { name: 'backup', last_delivery: { alert: alert.id, outcome: 'failed', status: 503 } },
  ]);

  const env = { GW_URL: gw.url, GW_ADMIN_TOKEN: ADMIN_TOKEN };
  const cli = await runCli(['alerts', 'list'], env);
  t.is(cli.code, 0, cli.stderr);
  const [head, row] = cli.stdout.trim().split('\n');
  t.regex(head!, /^TIME\s+SEVERITY\s+RULE\s+DELIVERIES\s+ALERT$/);
  t.regex(row!, /ops: delivered \(HTTP 200\); backup: FAILED \(HTTP 503, 2 attempts\)\s+model 'gpt-4o' error rate 100\.0%/);
  t.regex(cli.stderr, /webhook ops \(json\): last delivery \d{4}-\S+ delivered \(HTTP 200\)/);
  t.regex(cli.stderr, /webhook backup \(json\): last delivery \d{4}-\S+ FAILED \(HTTP 503, 2 attempts\)/);

  // a test delivery is a webhook's last one too
  t.is((await adminJson(gw, 'POST', '/v1/alerts/test', {})).status, 200);
  const after = await admin(gw, 'GET', '/v1/alerts');
  t.regex(after.body.webhooks[0].last_delivery.alert, /^test:/);
  t.like(after.body.webhooks[1].last_delivery, { outcome: 'failed', status: 503, attempts: 1 });
});
