/**
 * The console shows the usage parts (issue 25): the Overview's cache hit rate (cached /
 * prompt tokens) over the range and per model and per key, equal to what /v1/usage's
 * entries add up to, and a request's cache reads, cache writes and reasoning tokens in its
 * details. Headless Chromium via playwright-core (test/helpers/browser.ts).
 */
import test from 'ava';
import type { Page } from 'playwright-core';
import { browserFor } from '../helpers/browser.ts';
import { signIn } from '../helpers/console-page.ts';
import { baseConfig, startGateway } from '../helpers/gateway.ts';
import { fixtureJson, replyJson, startUpstream } from '../helpers/upstream.ts';
import { admin, client, KEY2, providerSection } from '../helpers/ext-helpers.ts';

/** Per model: what the upstream reports (gpt-4o reads 80% of its prompt from the cache, with reasoning; the mini none). */
const USAGE: Record<string, object> = {
  'gpt-4o': {
    prompt_tokens: 100,
    completion_tokens: 20,
    total_tokens: 120,
    prompt_tokens_details: { cached_tokens: 80, cache_write_tokens: 15 },
    completion_tokens_details: { reasoning_tokens: 7 },
  },
  'gpt-4o-mini': { prompt_tokens: 50, completion_tokens: 5, total_tokens: 55 },
};

async function cell(page: Page, group: string): Promise<string> {
  const row = page.locator('section.panel tr', { has: page.locator('.chip', { hasText: new RegExp(`^${group}$`) }) });
  return ((await row.locator('td[data-label="Cache hit"]').textContent()) ?? '').trim();
}

test('overview: cache hit rate over the range, per model and per key, as /v1/usage sums it; request details: the usage parts', async (t) => {
  const answer = fixtureJson('openai/spec-examples/chat.default.response.json');
  const up = await startUpstream((req, res) => replyJson(res, 200, { ...answer, model: req.json.model, usage: USAGE[req.json.model] }));
  const gw = await startGateway(baseConfig(`${providerSection(up, ['gpt-4o', 'gpt-4o-mini'])}\n[extensions.usage]\n[extensions.request_log]\n`));
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  const b = await browserFor(t);
  if (!b) return;
  const hi = [{ role: 'user' as const, content: 'hi' }];
  for (let i = 0; i < 2; i++) await client(gw).chat.completions.create({ model: 'gpt-4o', messages: hi });
  await client(gw, KEY2).chat.completions.create({ model: 'gpt-4o', messages: hi });
  await client(gw, KEY2).chat.completions.create({ model: 'gpt-4o-mini', messages: hi });

  // what the page must show, from the API: sums of cached over sums of prompt
  const lifetime = (await admin(gw, 'GET', '/v1/usage')).body as any[];
  const rate = (es: any[]) => es.reduce((a, e) => a + e.cached_tokens, 0) / es.reduce((a, e) => a + e.prompt_tokens, 0);
  const pct = (r: number) => `${(r * 100).toFixed(r < 0.1 ? 1 : 0)}%`;
  t.is(rate(lifetime), 240 / 350);

  const page = b.context.pages()[0] ?? (await b.context.newPage());
  await signIn(page, gw.url);
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  const tile = page.locator('.tile').filter({ has: page.locator('.label', { hasText: /^Cache hit rate$/ }) });
  await tile.locator('.value', { hasText: '%' }).waitFor();
  t.is(await tile.locator('.value').textContent(), pct(rate(lifetime)));
  await page.locator('section.panel .chip', { hasText: 'gpt-4o-mini' }).waitFor();
  t.is(await cell(page, 'gpt-4o'), pct(rate(lifetime.filter((e) => e.model === 'gpt-4o'))));
  t.is(await cell(page, 'gpt-4o-mini'), '0%');
  await page.getByRole('button', { name: 'By key' }).click();
  await page.locator('section.panel .chip', { hasText: 'second' }).waitFor();
  t.is(await cell(page, 'default'), pct(rate(lifetime.filter((e) => e.key === 'default'))));
  t.is(await cell(page, 'second'), pct(rate(lifetime.filter((e) => e.key === 'second'))));
  t.is(await cell(page, 'second'), '53%');

  await page.goto(`${gw.url}/ui/#/requests`);
  await page.getByRole('heading', { level: 1, name: 'Requests' }).waitFor();
  await page.getByLabel('Model').selectOption('gpt-4o');
  await page.getByLabel('Key').selectOption('second');
  await page.locator('[data-count="1"]').waitFor();
  await page.locator('tr[data-request-id]').first().click();
  const detail = page.getByRole('complementary', { name: 'Request details' });
  const field = async (label: string) =>
    ((await detail.locator('dt', { hasText: label }).locator('xpath=following-sibling::dd[1]').textContent()) ?? '').trim();
  t.is(await field('Prompt tokens'), '100');
  t.is(await field('… cache reads'), '80');
  t.is(await field('… cache writes'), '15');
  t.is(await field('Completion tokens'), '20');
  t.is(await field('… reasoning'), '7');
});
