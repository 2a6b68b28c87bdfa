/**
 * The console answers an operator's questions (issue 27, part A) in a real browser
 * (headless Chromium, playwright-core): the Overview's "other (N)" row carries the spend of
 * the models it sums, refusals (400, 401, 429) count as errors of their key, the status
 * filter offers every status gw answers with, the request list is in arrival order with
 * dates, and at phone width no card is wider than its box.
 */
import test from 'ava';
import { setTimeout as sleep } from 'node:timers/promises';
import { browserFor } from '../helpers/browser.ts';
import { chatCompletion } from '../helpers/completion.ts';
import { replyJson } from '../helpers/upstream.ts';
import { openPage, signIn } from '../helpers/console-page.ts';
import { baseConfig, startGateway } from '../helpers/gateway.ts';
import { admin, client, gatewayWith, HI, KEY, KEY2, openaiUpstream, post, providerSection } from '../helpers/ext-helpers.ts';

const CHEAP = Array.from({ length: 8 }, (_, i) => `cheap-${i + 1}`);
const DEAR = ['opus-a', 'opus-b'];
const MODELS = [...CHEAP, ...DEAR];

const pricing = [
  ...CHEAP.map((m) => `[pricing."${m}"]\ninput_per_mtok = 0.1\noutput_per_mtok = 0.1\n`),
  ...DEAR.map((m) => `[pricing."${m}"]\ninput_per_mtok = 15000\noutput_per_mtok = 75000\n`),
].join('');

const CONFIG = `${pricing}
[extensions.rate_limit]
requests_per_minute = 600
tokens_per_minute = 10000000
[keys.limited]
key = "sk-limited-key-000000000000000000"
requests_per_minute = 1
[extensions.usage]
[extensions.budget]
default_budget = 1000000.0
[extensions.request_log]
`;
const LIMITED = 'sk-limited-key-000000000000000000';

/** "$1.23" → 1.23 */
const dollars = (s: string) => Number(s.replace(/[$,]/g, ''));

test('overview: the "other (N)" row shows the spend of the models it sums, and by-key errors include 400, 401 and 429', async (t) => {
  const up = await openaiUpstream({ usageOf: () => ({ prompt_tokens: 10, completion_tokens: 5 }) });
  const gw = await startGateway(baseConfig(`${providerSection(up, MODELS)}\n${CONFIG}`));
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  const b = await browserFor(t);
  if (!b) return;
  const c = client(gw);
  // the cheap models lead by requests; the dear ones (inside "other") lead by spend
  for (const m of CHEAP) for (let i = 0; i < 3; i++) await c.chat.completions.create({ model: m, messages: HI });
  for (const m of DEAR) await c.chat.completions.create({ model: m, messages: HI });
  // an unknown model: a requests group ('(unknown model)') without spend, so the spend series has one group fewer
  t.is((await post(gw, '/v1/chat/completions', { model: 'no-such-model', messages: HI })).status, 404);
  // refusals: a 400 (invalid body) for `default`, a 401, a 429 for `limited`
  t.is((await post(gw, '/v1/chat/completions', { model: CHEAP[0], messages: 7 })).status, 400);
  t.is((await post(gw, '/v1/chat/completions', { model: CHEAP[0], messages: HI }, 'sk-wrong-key-00000000000000000000')).status, 401);
  t.is((await post(gw, '/v1/chat/completions', { model: CHEAP[0], messages: HI }, LIMITED)).status, 200);
  t.is((await post(gw, '/v1/chat/completions', { model: CHEAP[0], messages: HI }, LIMITED)).status, 429);
  await sleep(300); // refusals before admission are counted in the background

  const spend = (await admin(gw, 'GET', '/v1/budget?group_by=model')).body as Array<{ model: string; spent_usd: number }>;
  const other = spend.filter((e) => DEAR.includes(e.model)).reduce((a, e) => a + e.spent_usd, 0);
  t.true(other > 1, 'the dear models spent');

  const page = b.context.pages()[0] ?? (await b.context.newPage());
  await signIn(page, gw.url);
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  const row = page.locator('table.cards tbody tr', { hasText: 'other (3)' });
  await row.waitFor();
  t.true(Math.abs(dollars(await row.locator('td[data-label="Spend"]').innerText()) - other) <= other * 0.01, 'other row spend');
  // the rows add up to the total
  const cells = await page.locator('table.cards td[data-label="Spend"]').allInnerTexts();
  const total = dollars(await page.locator('.tile', { hasText: 'Spend' }).locator('.value').innerText());
  t.true(Math.abs(cells.map(dollars).reduce((a, v) => a + v, 0) - total) <= total * 0.01, `rows ${cells.join(' + ')} = ${total}`);

  await page.getByRole('button', { name: 'By key' }).click();
  const errorsOf = (key: string) => page.locator('table.cards tbody tr', { hasText: key }).locator('td[data-label="Errors"]').innerText();
  await page.locator('table.cards tbody tr', { hasText: '(unauthenticated)' }).waitFor();
  t.regex(await errorsOf('(unauthenticated)'), /^1 ·/);
  t.regex(await errorsOf('limited'), /^1 ·/);
  t.regex(await errorsOf('default'), /^2 ·/); // the 400 and the unknown model's 404
});

test('requests: newest arrival first, with dates; the status filter offers 400, 403 and 503 before any was logged', async (t) => {
  const up = await openaiUpstream();
  const gw = await gatewayWith(t, up, '[extensions.request_log]\n');
  const b = await browserFor(t);
  if (!b) return;
  // a slow request arrives first and ends last; a quick one arrives while it is in flight
  up.handle(async (req, res) => {
    if (req.json?.messages?.[0]?.content === 'slow') await sleep(600);
    replyJson(res, 200, chatCompletion('ok', 'gpt-4o'));
  });
  const slow = client(gw).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'slow' }] });
  await sleep(150);
  await client(gw, KEY2).chat.completions.create({ model: 'gpt-4o', messages: HI });
  await slow;
  await sleep(200);

  const page = b.context.pages()[0] ?? (await b.context.newPage());
  await signIn(page, gw.url);
  await openPage(page, 'requests', 'Requests');
  await page.locator('table.log tbody tr').nth(1).waitFor();
  const times = await page.locator('table.log tbody td[data-label="Time"] time').evaluateAll((els) => els.map((e) => e.getAttribute('datetime')!));
  t.is(times.length, 2);
  t.true(times[0]! > times[1]!, `newest arrival first: ${times.join(', ')}`);
  t.is(await page.locator('table.log tbody tr').first().locator('td[data-label="Key"]').innerText(), 'second');
  // a date with every time (the browser's locale: en-US here)
  t.regex(await page.locator('table.log tbody td[data-label="Time"]').first().innerText(), /[A-Z][a-z]{2} \d{1,2}/);
  const statuses = await page.locator('select[name="status"] option').evaluateAll((els) => els.map((e) => e.textContent ?? ''));
  for (const s of ['400', '401', '403', '404', '429', '502', '503', '504']) t.true(statuses.includes(s), `status ${s} offered`);
});

test('phone width (390 px), light and dark: no card on any page is wider than its box', async (t) => {
  const up = await openaiUpstream({ usageOf: () => ({ prompt_tokens: 10, completion_tokens: 5 }) });
  // a slow, flaky provider with a long base URL: its card has the longest lines (seconds, failure classes)
  const flaky = await openaiUpstream({ delayMs: 1100 });
  t.teardown(() => flaky.close());
  const gw = await gatewayWith(
    t,
    up,
    `[providers.flaky-eu-west-1]\napi_key = "sk-x"\nbase_url = "${flaky.origin}/proxy/eu-west-1/openai-compatible/v1"\nmax_retries = 0\nmodels = ["o4-mini-2025-04-16", "gpt-4.1-mini-2025-04-14"]\n` +
      '[pricing."gpt-4o"]\ninput_per_mtok = 2.5\noutput_per_mtok = 10.0\n[pricing."o4-mini-2025-04-16"]\ninput_per_mtok = 1.1\noutput_per_mtok = 4.4\n[extensions.usage]\n[extensions.budget]\ndefault_budget = 100.0\n[extensions.request_log]\n',
  );
  await Promise.all([
    client(gw).chat.completions.create({ model: 'o4-mini-2025-04-16', messages: HI }),
    client(gw)
      .chat.completions.create({ model: 'o4-mini-2025-04-16', messages: HI, stream: true })
      .then(async (s) => {
        for await (const _ of s) {
          /* drain */
        }
      }),
  ]);
  for (const status of [500, 429, 503]) {
    flaky.handle((_req, res) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"flaky"}}');
    });
    await post(gw, '/v1/chat/completions', { model: 'o4-mini-2025-04-16', messages: HI });
  }
  for (let i = 0; i < 3; i++) await client(gw).chat.completions.create({ model: 'gpt-4o', messages: HI });
  await client(gw)
    .chat.completions.create({ model: 'gpt-4o', messages: HI, stream: true })
    .then(async (s) => {
      for await (const _ of s) {
        /* drain */
      }
    });
  t.is((await post(gw, '/v1/chat/completions', { model: 'no-such-model', messages: HI }, KEY)).status, 404);
  for (const scheme of ['light', 'dark'] as const) {
    const b = await browserFor(t, { viewport: { width: 390, height: 844 }, colorScheme: scheme });
    if (!b) return;
    const page = b.context.pages()[0] ?? (await b.context.newPage());
    await signIn(page, gw.url);
    for (const [hash, heading] of [
      ['overview', 'Overview'],
      ['keys', 'Keys'],
      ['models', 'Models & providers'],
      ['requests', 'Requests'],
      ['traces', 'Traces'],
    ] as const) {
      await openPage(page, hash, heading);
      await page.waitForLoadState('networkidle');
      const over = await page.evaluate<string[]>(
        // a card wider than its box, or a box that scrolls sideways (what it cuts off is out of sight)
        `[...document.querySelectorAll('table.cards tbody tr, .tile, .panel, figure.chart, .scroll')]
          .filter((el) => !el.closest('details:not([open])'))
          .map((el) => [el, el.parentElement.closest('.scroll, .panel, main') ?? document.body])
          .filter(([el, box]) => el.scrollWidth > el.clientWidth + 1 || el.getBoundingClientRect().width > box.clientWidth + 1)
          .map(([el, box]) => el.tagName.toLowerCase() + '.' + el.className + ' ' + el.scrollWidth + '/' + el.getBoundingClientRect().width + ' in ' + box.clientWidth + ': ' + (el.textContent ?? '').slice(0, 60))`,
      );
      t.deepEqual(over, [], `${scheme} ${hash}`);
      t.true(await page.evaluate<boolean>('document.documentElement.scrollWidth <= innerWidth + 1'), `${scheme} ${hash}: the page fits 390 px`);
      if (scheme === 'dark') {
        // legible: body text is light on a dark background
        const [fg, bg] = await page.evaluate<string[]>('[getComputedStyle(document.body).color, getComputedStyle(document.body).backgroundColor]');
        const lum = (c: string) => (c.match(/\d+/g) ?? []).slice(0, 3).reduce((a, v) => a + Number(v), 0) / 3;
        t.true(lum(fg) - lum(bg) > 100, `${hash}: ${fg} on ${bg}`);
      }
    }
    await b.context.close();
  }
});

test("yesterday's spend on the Overview matches /v1/usage and /v1/budget for traffic made with the gateway's clock a day back", async (t) => {
  const up = await openaiUpstream({ usageOf: () => ({ prompt_tokens: 1000, completion_tokens: 500 }) });
  const gw = await startGateway(
    baseConfig(
      `${providerSection(up)}\n[pricing."gpt-4o"]\ninput_per_mtok = 2.5\noutput_per_mtok = 10.0\n[extensions.usage]\n[extensions.budget]\ndefault_budget = 100.0\n`,
    ),
    { clock: () => Date.now() - 86_400_000 },
  );
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  const b = await browserFor(t);
  if (!b) return;
  for (let i = 0; i < 3; i++) await client(gw).chat.completions.create({ model: 'gpt-4o', messages: HI });
  const today = new Date().toISOString().slice(0, 10);
  const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  const spend = (await admin(gw, 'GET', `/v1/budget?bucket=day&from=${yesterday}&to=${today}`)).body as any[];
  const usage = (await admin(gw, 'GET', `/v1/usage?bucket=day&from=${yesterday}&to=${today}`)).body as any[];
  t.is(
    usage.reduce((a, e) => a + e.requests, 0),
    3,
  );
  t.true(usage.every((e) => e.bucket_start === `${yesterday}T00:00:00.000Z`));
  const usd = spend.reduce((a, e) => a + e.spent_usd, 0);
  t.true(Math.abs(usd - (3 * (1000 * 2.5 + 500 * 10)) / 1e6) < 1e-9, `${usd}`);

  const page = b.context.pages()[0] ?? (await b.context.newPage());
  await signIn(page, gw.url);
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  await page.getByRole('group', { name: 'Range' }).getByRole('button', { name: 'Yesterday' }).click();
  await page.locator('figure[data-chart="requests"] .chart-zone', { hasText: 'UTC' }).waitFor();
  const tile = (name: string) =>
    page
      .locator('.tile')
      .filter({ has: page.locator('.label', { hasText: new RegExp(`^${name}$`) }) })
      .locator('.value');
  await tile('Spend')
    .filter({ hasText: `$${usd.toFixed(3)}` })
    .waitFor();
  t.is(await tile('Requests').innerText(), '3');
  // the table names the day it covers
  t.true((await page.locator('.panel-head', { hasText: 'in this range' }).innerText()).includes(yesterday));
});

test('the Spend tile says where prices come from: the bundled table, [pricing], and how many pairs have none', async (t) => {
  const up = await openaiUpstream({ usageOf: () => ({ prompt_tokens: 1000, completion_tokens: 500 }) });
  // gpt-4o on the openai kind, no [pricing]: the bundled table prices it
  const bundled = `[providers.up]\nkind = "openai"\napi_key = "sk-upstream-secret-value"\nbase_url = "${up.origin}/v1"\nmax_retries = 0\nmodels = ["gpt-4o"]\n`;
  const ext = '[extensions.usage]\n[extensions.budget]\ndefault_budget = 100.0\n';
  const gws = [
    await startGateway(baseConfig(`${bundled}\n${ext}`)),
    await startGateway(
      baseConfig(
        `${bundled}[providers.local]\napi_key = "x"\nbase_url = "${up.origin}/v1"\nmodels = ["gpt-4o"]\n[pricing."house"]\ninput_per_mtok = 1\noutput_per_mtok = 1\n${ext}`,
      ),
    ),
    await startGateway(baseConfig(`${providerSection(up, ['gpt-4o'])}\n[pricing."gpt-4o"]\ninput_per_mtok = 2.5\noutput_per_mtok = 10.0\n${ext}`)),
  ];
  t.teardown(async () => {
    for (const gw of gws) await gw.stop();
    await up.close();
  });
  const b = await browserFor(t);
  if (!b) return;
  const page = b.context.pages()[0] ?? (await b.context.newPage());
  const hints: string[] = [];
  for (const gw of gws) {
    await signIn(page, gw.url);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    const hint = page.locator('.tile', { has: page.locator('.label', { hasText: /^Spend$/ }) }).locator('.hint');
    await hint.filter({ hasText: /priced|prices/ }).waitFor();
    hints.push(await hint.innerText());
  }
  t.deepEqual(hints, ['priced from the bundled price table', 'priced from the bundled price table; 1 unpriced', 'priced from [pricing]']);
});

test('Models page: the per-model latency chart shows the model the mock made slow', async (t) => {
  const up = await openaiUpstream();
  const slow = await openaiUpstream({ delayMs: 1500 });
  t.teardown(() => slow.close());
  const gw = await gatewayWith(
    t,
    up,
    `[providers.slowup]\napi_key = "sk-x"\nbase_url = "${slow.origin}/v1"\nmax_retries = 0\nmodels = ["o4-mini"]\n[extensions.usage]\n`,
  );
  const b = await browserFor(t);
  if (!b) return;
  const slowOnes = Promise.all([0, 1, 2].map(() => client(gw).chat.completions.create({ model: 'o4-mini', messages: HI })));
  for (let i = 0; i < 3; i++) await client(gw).chat.completions.create({ model: 'gpt-4o', messages: HI });
  await slowOnes;
  await sleep(1300); // the sketches are written once a second
  const page = b.context.pages()[0] ?? (await b.context.newPage());
  await signIn(page, gw.url);
  await openPage(page, 'models', 'Models & providers');
  const cells = page.locator('figure[data-chart="model-latency"] td[data-series]');
  await cells.first().waitFor({ state: 'attached' });
  const values = await cells.evaluateAll((els) => els.map((e) => [e.getAttribute('data-series'), Number(e.getAttribute('data-value'))] as const));
  const of = (m: string) => values.filter(([s, v]) => s === m && v > 0).map(([, v]) => v);
  t.true(of('o4-mini').length > 0 && of('o4-mini').every((v) => v >= 1500 * 0.99), `o4-mini ${of('o4-mini')}`);
  t.true(of('gpt-4o').length > 0 && Math.max(...of('gpt-4o')) < Math.min(...of('o4-mini')), `gpt-4o ${of('gpt-4o')}`);
});

test('a page that writes its view into the URL while mounting never takes back a tab the user has since opened', async (t) => {
  const up = await openaiUpstream();
  const gw = await gatewayWith(t, up, '[extensions.usage]\n');
  const b = await browserFor(t);
  if (!b) return;
  const page = await b.context.newPage();
  await signIn(page, gw.url);
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  // the order the race produced: the Models tab is in the URL, its hashchange not yet handled,
  // and the Overview's effect writes its own view (page code as strings: it runs in the browser)
  const writeOverviewViewAt = (hash: string) =>
    page.evaluate(`import('/ui/hash.js').then(({ replaceView }) => {
      history.replaceState(null, '', '${hash}');
      replaceView('overview', { by: 'key' });
      return location.hash;
    })`);
  t.is(await writeOverviewViewAt('#/models'), '#/models');
  await page.evaluate(`dispatchEvent(new HashChangeEvent('hashchange'))`);
  await page.getByRole('heading', { level: 1, name: 'Models & providers' }).waitFor();
  t.is(await writeOverviewViewAt('#/overview'), '#/overview?by=key', 'on its own page the view is still written');
});
