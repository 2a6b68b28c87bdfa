/**
 * The console (/ui) in a real browser: headless Chromium (Debian's package) driven by
 * playwright-core against gw in-process with a mock upstream. Sign-in, the overview chart
 * against /v1/usage, a key created, used and revoked, the request log filtered down to one
 * failed request, a wrong token, the transfer size of a load, and a screenshot of every page
 * (kept in a temp dir whose path the test logs; GW_SCREENSHOTS=<dir> picks the dir).
 */
import test from 'ava';
import OpenAI from 'openai';
import { browserFor } from '../helpers/browser.ts';
import { chatCompletion } from '../helpers/completion.ts';
import { replyJson } from '../helpers/upstream.ts';
import { CONSOLE_PRICING, openPage, screenshot, signIn } from '../helpers/console-page.ts';
import { ADMIN_TOKEN, admin, client, gatewayWith, HI, KEY, KEY2, openaiUpstream, post } from '../helpers/ext-helpers.ts';

const EXTENSIONS = `${CONSOLE_PRICING}
[extensions.rate_limit]
requests_per_minute = 600
tokens_per_minute = 1000000
[extensions.usage]
[extensions.budget]
default_budget = 5.0
[extensions.request_log]
`;
const usageOf = (json: any) => ({
  prompt_tokens: 10 + String(json?.messages?.[0]?.content ?? json?.input ?? '').length,
  completion_tokens: json?.max_tokens ?? 5,
});

test('sign in → overview chart matches /v1/usage → create a key, use it, revoke it, refused → request log filtered to one failed request', async (t) => {
  const up = await openaiUpstream({ usageOf });
  const gw = await gatewayWith(t, up, EXTENSIONS);
  const b = await browserFor(t);
  if (!b) return;
  // traffic: two keys, two models, a stream, and failures
  for (let i = 0; i < 3; i++) await client(gw).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: `hello ${i}` }], max_tokens: 8 });
  const s = await client(gw, KEY2).chat.completions.create({ model: 'gpt-4o', messages: HI, max_tokens: 4, stream: true });
  for await (const _ of s) {
    /* drain */
  }
  await client(gw, KEY2).embeddings.create({ model: 'text-embedding-3-small', input: 'embed me' });
  t.is((await post(gw, '/v1/chat/completions', { model: 'no-such-model', messages: HI })).status, 404);
  up.handle((_req, res) => {
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end('{"error":{"message":"upstream exploded"}}');
  });
  t.is((await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI }, KEY2)).status, 502);
  up.handle((_req, res) => {
    replyJson(res, 200, chatCompletion('ok', 'gpt-4o'));
  });

  const page = b.context.pages()[0] ?? (await b.context.newPage());
  const urls: string[] = [];
  page.on('request', (r) => urls.push(r.url()));
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));

  // sign in
  await signIn(page, gw.url, ADMIN_TOKEN);
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  t.is(await page.evaluate(() => sessionStorage.getItem('gw.adminToken')), ADMIN_TOKEN);

  // the overview chart: its points are /v1/usage's, per hour and model
  const chart = page.locator('[data-chart=requests]');
  await chart.locator('.plot canvas').first().waitFor();
  const drawn = await chart.locator('.plot').evaluate((el: any) => ({ x: el._uplot.data[0] as number[], ys: el._uplot.data.slice(1) as number[][] }));
  const end = Math.floor(Date.now() / 3_600_000) * 3_600_000 + 3_600_000;
  const api = (
    await admin(gw, 'GET', `/v1/usage?bucket=hour&group_by=model&from=${new Date(end - 24 * 3_600_000).toISOString()}&to=${new Date(end).toISOString()}`)
  ).body as any[];
  t.true(api.length >= 3);
  const perHour = new Map<number, number>();
  for (const e of api) perHour.set(Date.parse(e.bucket_start) / 1000, (perHour.get(Date.parse(e.bucket_start) / 1000) ?? 0) + e.requests);
  t.is(drawn.x.length, 24);
  // stacked bars are drawn cumulative, the total first: its top is the hour's requests
  t.deepEqual(
    drawn.x.map((x, i) => [x, drawn.ys[0]![i]]),
    drawn.x.map((x) => [x, perHour.get(x) ?? 0]),
  );
  // and the data table under it, per model
  await chart.getByText('Data').click();
  for (const e of api) {
    const label = e.model === '' ? '(unknown model)' : e.model;
    const cell = chart.locator(`tr[data-time="${e.bucket_start}"] td[data-series="${label}"]`);
    t.is(await cell.getAttribute('data-value'), String(e.requests), `${e.bucket_start} ${label}`);
  }
  t.is(
    await page
      .locator('.tile')
      .filter({ has: page.locator('.label', { hasText: /^Requests$/ }) })
      .locator('.value')
      .textContent(),
    String(api.reduce((n, e) => n + e.requests, 0)),
  );
  await screenshot(t, page, 'overview');
  await page.getByRole('button', { name: 'By key' }).click();
  await page.locator('[data-chart=requests] .legend', { hasText: 'second' }).waitFor();
  await screenshot(t, page, 'overview-by-key');

  // keys: create one (shown once), use it, revoke it, see it refused
  await openPage(page, 'keys', 'Keys');
  await page.locator('tr[data-key=default]').waitFor();
  t.regex((await page.locator('tr[data-key=default]').textContent()) ?? '', /\$[\d.]+ of \$5\.00/);
  await page.getByLabel('Key name').fill('browser-key');
  await page.getByRole('button', { name: 'Create key' }).click();
  const secret = (await page.locator('code.new-key').textContent())!.trim();
  t.regex(secret, /^sk-[A-Za-z0-9_-]{32,}$/);
  await screenshot(t, page, 'keys-created');
  const fresh = new OpenAI({ baseURL: gw.baseURL, apiKey: secret, maxRetries: 0 });
  t.is((await fresh.chat.completions.create({ model: 'gpt-4o', messages: HI })).choices[0]!.message.content, 'ok');
  const row = page.locator('tr[data-key=browser-key]');
  await row.waitFor();
  await row.getByRole('button', { name: 'Revoke' }).click();
  await row.getByRole('button', { name: 'Revoke browser-key' }).click();
  await page.getByText('Key browser-key revoked').waitFor();
  await row.waitFor({ state: 'detached' });
  const refused = await fresh.chat.completions.create({ model: 'gpt-4o', messages: HI }).catch((e: unknown) => e as { status?: number });
  t.is((refused as { status?: number }).status, 401);
  t.false((await page.content()).includes(secret), 'the secret is gone from the page once dismissed by the revocation');
  await screenshot(t, page, 'keys');

  // models & providers: health of the provider
  await openPage(page, 'models', 'Models & providers');
  const provider = page.locator('tr[data-provider=up]');
  await provider.getByText(/req ·/).first().waitFor();
  t.regex((await provider.textContent()) ?? '', /closed/);
  await screenshot(t, page, 'models');

  // requests: filter down to the one failed request of key 'second'
  await openPage(page, 'requests', 'Requests');
  await page.locator('tr[data-request-id]').first().waitFor();
  await page.getByLabel('Status').selectOption('error');
  await page.getByLabel('Key').selectOption('second');
  const rows = page.locator('tr[data-request-id]');
  await page.locator('[data-count="1"]').waitFor();
  t.is(await rows.count(), 1);
  t.regex((await rows.first().textContent()) ?? '', /502/);
  await rows.first().click();
  const detail = page.getByRole('complementary', { name: 'Request details' });
  await detail.getByText(/upstream exploded/).waitFor();
  await screenshot(t, page, 'requests');

  t.false(
    urls.some((u) => u.includes(ADMIN_TOKEN) || u.includes(secret)),
    'no token in any URL',
  );
  t.false(page.url().includes(ADMIN_TOKEN));
  t.deepEqual(problems, []);
});

test('a wrong token or a gateway key shows what is wrong, not a blank page; phone width and dark mode render every page', async (t) => {
  const up = await openaiUpstream({ usageOf });
  const gw = await gatewayWith(t, up, EXTENSIONS);
  const b = await browserFor(t, { viewport: { width: 390, height: 844 }, colorScheme: 'dark' });
  if (!b) return;
  await client(gw).chat.completions.create({ model: 'gpt-4o', messages: HI });
  const page = b.context.pages()[0] ?? (await b.context.newPage());
  await signIn(page, gw.url, 'sk-not-the-admin-token-000000000');
  await page
    .getByRole('alert')
    .getByText(/The admin token was refused: invalid admin token/)
    .waitFor();
  t.is(await page.evaluate(() => sessionStorage.getItem('gw.adminToken')), null);
  await screenshot(t, page, 'signin-wrong-token');
  await page.getByLabel('Admin token').fill(KEY);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page
    .getByRole('alert')
    .getByText(/That is a gateway key, not the admin token/)
    .waitFor();
  await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  for (const [hash, heading] of [
    ['overview', 'Overview'],
    ['keys', 'Keys'],
    ['models', 'Models & providers'],
    ['requests', 'Requests'],
  ] as const) {
    await openPage(page, hash, heading);
    await page.waitForLoadState('networkidle');
    // nothing wider than the screen: no sideways scrolling of the page
    t.true(await page.evaluate<boolean>('document.documentElement.scrollWidth <= innerWidth + 1'), `${hash} fits 390 px`);
    await screenshot(t, page, `phone-dark-${hash}`);
  }
  // the admin token stops working (config reloaded with another): signed out with the reason
  await page.evaluate(() => sessionStorage.setItem('gw.adminToken', 'sk-stale-admin-token-00000000000'));
  await openPage(page, 'keys', 'Keys').catch(() => undefined);
  await page
    .getByRole('alert')
    .getByText(/no longer accepted/)
    .waitFor();
});

test('loading /ui transfers at most 300 KB (before gzip), all from gw itself', async (t) => {
  const up = await openaiUpstream({ usageOf });
  const gw = await gatewayWith(t, up, EXTENSIONS);
  const b = await browserFor(t);
  if (!b) return;
  await client(gw).chat.completions.create({ model: 'gpt-4o', messages: HI });
  const page = b.context.pages()[0] ?? (await b.context.newPage());
  const sizes = new Map<string, number>();
  const pending: Array<Promise<void>> = [];
  page.on('response', (r) =>
    pending.push(
      r.body().then(
        (body) => void sizes.set(r.url(), body.length),
        () => undefined,
      ),
    ),
  );
  await signIn(page, gw.url, ADMIN_TOKEN);
  await page.locator('[data-chart=requests] .plot canvas').first().waitFor();
  await page.waitForLoadState('networkidle');
  await Promise.all(pending);
  const origin = new URL(gw.url).origin;
  t.true(
    [...sizes.keys()].every((u) => u.startsWith(origin)),
    'no other host',
  );
  const assets = [...sizes].filter(([u]) => new URL(u).pathname.startsWith('/ui'));
  const assetBytes = assets.reduce((n, [, s]) => n + s, 0);
  const allBytes = [...sizes.values()].reduce((n, s) => n + s, 0);
  t.log(`/ui load: ${assets.length} assets, ${(assetBytes / 1024).toFixed(1)} KiB; with the first API answers ${(allBytes / 1024).toFixed(1)} KiB`);
  for (const [u, s] of assets.sort((a, z) => z[1] - a[1])) t.log(`  ${(s / 1024).toFixed(1).padStart(6)} KiB  ${new URL(u).pathname}`);
  t.true(allBytes <= 300 * 1024, `${allBytes} bytes`);
  // the page's security headers
  const res = await fetch(`${gw.url}/ui/`);
  t.regex(res.headers.get('content-security-policy') ?? '', /default-src 'self'; script-src 'self' 'sha256-[A-Za-z0-9+/=]+'/);
  t.is((await fetch(`${gw.url}/ui`, { redirect: 'manual' })).headers.get('location'), '/ui/');
  t.is((await fetch(`${gw.url}/ui/../gateway.toml`)).status, 404);
  t.is((await fetch(`${gw.url}/ui/vendor/evil.js`)).status, 404);
});
