/**
 * The console's Traces and Alerts pages (issue 38) in headless Chromium, at 1440 and 390 px:
 * the Traces list names each request's model, key and status, and a refused request (a 429, a
 * 404) carries an error badge, its SERVER span an error; the Alerts page shows each alert's
 * delivery per webhook (delivered, failed with its status) and each webhook's last delivery.
 * Screenshots are kept in a temp dir (GW_SCREENSHOTS=<dir> picks it).
 */
import test from 'ava';
import type { Page } from 'playwright-core';
import { alertsSection, errorRateRule } from '../helpers/alerts-config.ts';
import { browserFor } from '../helpers/browser.ts';
import { openPage, screenshot, signIn } from '../helpers/console-page.ts';
import { baseConfig, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { startReceiver } from '../helpers/otlp-receiver.ts';
import { replyJson, startUpstream } from '../helpers/upstream.ts';
import { admin, HI, KEY, KEY2, openaiUpstream, post, providerSection } from '../helpers/ext-helpers.ts';

const VIEWPORTS = [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
] as const;

/** Panels and cards wider than their box, and whether the page scrolls sideways. */
const OVERFLOW = `[...document.querySelectorAll('table.cards tbody tr, .panel')]
  .filter((el) => el.scrollWidth > el.clientWidth + 1)
  .map((el) => el.tagName.toLowerCase() + '.' + el.className + ' ' + el.scrollWidth + ' > ' + el.clientWidth)
  .concat(document.documentElement.scrollWidth > innerWidth + 1 ? ['the page: ' + document.documentElement.scrollWidth] : [])`;

/** A signed-in page at `viewport`, and the errors it throws (undefined when the test skips: no chromium). */
async function signedIn(
  t: import('ava').ExecutionContext,
  gw: TestGateway,
  viewport: (typeof VIEWPORTS)[number],
): Promise<{ page: Page; problems: string[] } | undefined> {
  const b = await browserFor(t, { viewport });
  if (!b) return undefined;
  const page = await b.context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  await signIn(page, gw.url);
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  return { page, problems };
}

test('the Traces list shows model, key and status of each request, and an error badge for a 429 and a 404', async (t) => {
  const up = await openaiUpstream();
  const rx = await startReceiver();
  const gw = await startGateway(
    baseConfig(`${providerSection(up)}
[keys.limited]
key = "sk-limited-key-000000000000000000"
requests_per_minute = 1

[extensions.rate_limit]
requests_per_minute = 600

[extensions.otel]
endpoint = "${rx.endpoint}"
schedule_delay_ms = 20
`),
  );
  t.teardown(async () => {
    await gw.stop();
    await up.close();
    await rx.close();
  });
  const LIMITED = 'sk-limited-key-000000000000000000';
  const ids: Record<string, string> = {};
  const send = async (name: string, model: string, key: string, status: number) => {
    const r = await post(gw, '/v1/chat/completions', { model, messages: HI }, key);
    t.is(r.status, status, name);
    ids[name] = r.headers.get('x-gw-trace-id')!;
  };
  await send('ok', 'gpt-4o', KEY, 200);
  await send('unknown', 'no-such-model', KEY2, 404);
  await send('first', 'gpt-4o', LIMITED, 200);
  await send('limited', 'gpt-4o', LIMITED, 429);
  // every trace is exported (the list shows what was)
  for (;;) {
    const listed = (await admin(gw, 'GET', '/v1/otel/spans?limit=50')).body as Array<{ trace_id: string }>;
    if (Object.values(ids).every((id) => listed.some((x) => x.trace_id === id))) break;
    await new Promise((r) => setTimeout(r, 50));
  }

  for (const viewport of VIEWPORTS) {
    const signed = await signedIn(t, gw, viewport);
    if (!signed) return;
    const { page, problems } = signed;
    await openPage(page, 'traces', 'Traces');
    const row = (name: string) => page.locator(`tr[data-trace="${ids[name]}"]`);
    await row('limited').waitFor();
    const cell = async (name: string, label: string) => ((await row(name).locator(`td[data-label="${label}"]`).textContent()) ?? '').trim();
    t.is(await cell('ok', 'Model'), 'gpt-4o');
    t.is(await cell('ok', 'Key'), 'default');
    t.is(await cell('ok', 'Status'), '200');
    t.is(await row('ok').locator('.badge.bad').count(), 0, 'a 200 has no error badge');
    t.is(await cell('limited', 'Key'), 'limited');
    t.is(await cell('limited', 'Model'), 'gpt-4o');
    t.is(await cell('limited', 'Status'), '429 error');
    t.true(await row('limited').locator('.badge.bad').isVisible(), `${viewport.width} px: the 429's error badge is shown`);
    t.is(await row('limited').locator('.badge.bad').getAttribute('title'), 'rate_limit_exceeded');
    t.is(await cell('unknown', 'Model'), 'no-such-model');
    t.is(await cell('unknown', 'Key'), 'second');
    t.is(await cell('unknown', 'Status'), '404 error');
    // the 429's waterfall: its SERVER span is an error, with the reason
    await row('limited').click();
    const detail = page.locator('aside.span-detail');
    await detail.waitFor();
    t.regex((await detail.textContent()) ?? '', /Statuserror — /);
    t.deepEqual(await page.evaluate<string[]>(OVERFLOW), [], `${viewport.width} px: nothing wider than its box`);
    await screenshot(t, page, `traces-${viewport.width}`);
    t.deepEqual(problems, [], 'no error in the page');
  }
});

test('the Alerts page shows each delivery per webhook, and each webhook’s last delivery', async (t) => {
  const up = await startUpstream((_r, res) => replyJson(res, 500, { error: { message: 'boom' } }));
  const ok = await startUpstream((_r, res) => void res.end('ok'));
  const down = await startUpstream((_r, res) => {
    res.writeHead(503);
    res.end();
  });
  const gw = await startGateway(
    baseConfig(
      `${providerSection(up)}\n${alertsSection(
        [
          { name: 'ops-slack', url: `${ok.origin}/hook`, more: 'format = "slack"\n' },
          { name: 'backup', url: `${down.origin}/hook`, more: 'max_attempts = 2\nretry_base_ms = 20\n' },
        ],
        errorRateRule(),
      )}`,
    ),
  );
  t.teardown(async () => {
    await gw.stop();
    for (const s of [up, ok, down]) await s.close();
  });
  for (let i = 0; i < 2; i++) t.is((await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI })).status, 502);
  for (;;) {
    const listed = await admin(gw, 'GET', '/v1/alerts');
    if (listed.body.data[0]?.deliveries.every((d: { outcome: string }) => d.outcome !== 'pending')) break;
    await new Promise((r) => setTimeout(r, 50));
  }

  for (const viewport of VIEWPORTS) {
    const signed = await signedIn(t, gw, viewport);
    if (!signed) return;
    const { page, problems } = signed;
    await openPage(page, 'alerts', 'Alerts');
    const row = page.locator('tr[data-alert^="error_rate:"]');
    await row.waitFor();
    const delivered = row.locator('[data-delivery="ops-slack"]');
    t.is(await delivered.getAttribute('data-outcome'), 'delivered');
    t.regex((await delivered.textContent()) ?? '', /ops-slack\s*delivered\s*HTTP 200/);
    t.regex((await delivered.getAttribute('title')) ?? '', /^delivered at \d{4}-/);
    const failed = row.locator('[data-delivery="backup"]');
    t.is(await failed.getAttribute('data-outcome'), 'failed');
    t.regex((await failed.textContent()) ?? '', /backup\s*failed\s*HTTP 503 · 2 attempts/);
    t.true(await failed.locator('.badge.bad').isVisible());
    t.regex((await page.locator('li[data-webhook="ops-slack"]').textContent()) ?? '', /Last delivery .+: delivered HTTP 200/);
    t.regex((await page.locator('li[data-webhook="backup"]').textContent()) ?? '', /Last delivery .+: failed HTTP 503 · 2 attempts/);
    t.deepEqual(await page.evaluate<string[]>(OVERFLOW), [], `${viewport.width} px: nothing wider than its box`);
    await screenshot(t, page, `alerts-deliveries-${viewport.width}`);
    t.deepEqual(problems, [], 'no error in the page');
  }
});
