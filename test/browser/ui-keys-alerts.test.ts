/**
 * The console's Keys and Alerts pages (issue 27, items 4 and 5), in headless Chromium. Keys: a runtime key's budget, period and models edited on the page, and the next
 * request obeys them; an invalid value's error next to its field; a config-file key shown
 * read-only; a rotation with a grace period (both secrets work); the create form taking every
 * setting; the page at phone width without horizontal overflow. Alerts: a budget alert listed
as it fired, in light and dark mode, at phone width. Screenshots are kept in a
 * temp dir (GW_SCREENSHOTS=<dir> picks it).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import type { Page } from 'playwright-core';
import { loadConfig } from '../../server/config/load.ts';
import { createLogger } from '../../server/log.ts';
import { openStore } from '../../server/open-store.ts';
import { baseConfig, startGateway } from '../helpers/gateway.ts';
import { browserFor } from '../helpers/browser.ts';
import { CONSOLE_PRICING, openPage, screenshot, signIn } from '../helpers/console-page.ts';
import { startUpstream } from '../helpers/upstream.ts';
import { adminJson, gatewayWith, HI, KEY, openaiUpstream, post } from '../helpers/ext-helpers.ts';

const EXTENSIONS = `${CONSOLE_PRICING}
[extensions.rate_limit]
requests_per_minute = 600
[extensions.usage]
[extensions.budget]
default_budget = 5.0
`;
const usageOf = () => ({ prompt_tokens: 1000, completion_tokens: 100 });

/** Signs in and opens the console page `hash` (its heading `heading`). */
async function signInTo(page: Page, url: string, hash: string, heading: string): Promise<void> {
  await signIn(page, url);
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  await openPage(page, hash, heading);
}

/** Classes and widths of the panels wider than their box. */
const OVERFLOWING =
  "[...document.querySelectorAll('.panel')].filter((el) => el.scrollWidth > el.clientWidth + 1).map((el) => `${el.className}: ${el.scrollWidth} > ${el.clientWidth}`)";

test('edit a key on the Keys page (budget, period, models), then the next request obeys; errors by their field; file keys read-only; rotate with grace', async (t) => {
  const up = await openaiUpstream({ usageOf });
  const gw = await gatewayWith(t, up, EXTENSIONS);
  const b = await browserFor(t);
  if (!b) return;
  const created = await adminJson(gw, 'POST', '/v1/admin/keys', { name: 'team', budget: 5, tags: { team: 'ml', env: 'dev' } });
  t.is(created.status, 201);
  const secret: string = created.body.key;
  // one request of 1000 + 100 tokens of gpt-4o: $0.0035
  t.is((await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI, max_tokens: 1 }, secret)).status, 200);

  const page = b.context.pages()[0] ?? (await b.context.newPage());
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  await signInTo(page, gw.url, 'keys', 'Keys');
  const row = page.locator('tr[data-key=team]');
  await row.waitFor();
  t.regex((await row.textContent()) ?? '', /team=ml/);
  await row.getByRole('button', { name: 'Manage' }).click();
  const panel = page.locator('[data-key-detail=team]');
  await panel.waitFor();
  t.regex((await panel.locator('[data-spend]').textContent()) ?? '', /\$0\.00350 of \$5\.00/);
  t.is(await panel.getByLabel('Tags').inputValue(), 'team=ml, env=dev');

  // an invalid value: the API's message appears under that field
  await panel.getByLabel('Requests / min').fill('lots');
  await panel.getByRole('button', { name: 'Save changes' }).click();
  const rpmError = panel.locator('[data-setting=requests_per_minute] .field-error');
  await rpmError.waitFor();
  t.regex((await rpmError.textContent()) ?? '', /expected a whole number of requests/);
  t.is(await panel.locator('[data-setting=requests_per_minute] input').getAttribute('aria-invalid'), 'true');
  await panel.getByLabel('Requests / min').fill('');

  // the edit: a monthly budget below what was spent, gpt-4o only, one tag removed
  await panel.getByLabel('Budget (USD)').fill('0.003');
  await panel.getByLabel('Budget period').selectOption('monthly');
  await panel.getByLabel('Models').fill('gpt-4o');
  await panel.getByLabel('Tags').fill('team=ml');
  await panel.getByRole('button', { name: 'Save changes' }).click();
  await panel.getByText('Saved: the next request of team follows these settings.').waitFor();
  const listed = (await adminJson(gw, 'GET', '/v1/admin/keys')).body.data.find((k: any) => k.name === 'team');
  t.like(listed, { budget: 0.003, budget_period: 'monthly', models: ['gpt-4o'], tags: { team: 'ml' } });
  // the next requests obey: a model outside `models` → 403 …
  const embed = await post(gw, '/v1/embeddings', { model: 'text-embedding-3-small', input: 'x' }, secret);
  t.is(embed.status, 403);
  t.is(((await embed.json()) as any).error.code, 'model_not_allowed');
  // switching lifetime → monthly keeps what the key spent this month: its $0.0035 already exhausts $0.003
  const over = await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI, max_tokens: 1 }, secret);
  t.is(over.status, 429);
  t.is(((await over.json()) as any).error.code, 'budget_exceeded');
  // the page shows the period's spend against the new budget, its reset (UTC), and the past periods
  await page.reload();
  await row.getByRole('button', { name: 'Manage' }).click();
  t.regex((await panel.locator('[data-spend]').textContent()) ?? '', /Spent this month\$0\.00350 of \$0\.00300 \(116\.7%\)/);
  await panel.locator('[data-resets]', { hasText: /-01 00:00 UTC/ }).waitFor();
  t.regex((await panel.locator('[data-period]').textContent()) ?? '', /^monthly from \d{4}-\d\d-01 00:00 UTC$/);
  await panel.locator('[data-history] tbody tr').first().waitFor();
  await screenshot(t, page, 'keys-manage');

  // rotate with a one-hour grace: the new secret works and so does the old one
  await panel.getByLabel('Grace period').selectOption('3600');
  await panel.getByRole('button', { name: 'Rotate secret' }).click();
  const fresh = (await panel.locator('[data-rotated] code.new-key').textContent())!.trim();
  t.regex(fresh, /^sk-[A-Za-z0-9_-]{32,}$/);
  t.regex((await panel.locator('[data-rotated]').textContent()) ?? '', /previous secret works until \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
  await adminJson(gw, 'PATCH', '/v1/admin/keys/team', { budget: null });
  t.is((await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI, max_tokens: 1 }, fresh)).status, 200);
  t.is((await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI, max_tokens: 1 }, secret)).status, 200);

  // a config-file key: read-only and marked
  await page.locator('tr[data-key=default]').getByRole('button', { name: 'View' }).click();
  const file = page.locator('[data-key-detail=default]');
  await file.locator('[data-readonly]').waitFor();
  t.true(await file.getByLabel('Budget (USD)').isDisabled());
  t.is(await file.getByRole('button', { name: 'Save changes' }).count(), 0);
  t.is(await file.getByRole('button', { name: 'Rotate secret' }).count(), 0);

  // the create form takes every setting
  await page.getByLabel('Key name').fill('batch');
  const create = page.locator('form.create-key');
  await create.getByLabel('Models').fill('gpt-4o, text-*');
  await create.getByLabel('Requests / min').fill('30');
  await create.getByLabel('Tokens / min').fill('50000');
  await create.getByLabel('Budget (USD)').fill('12.5');
  await create.getByLabel('Budget period').selectOption('weekly');
  await create.getByLabel('Expires at').fill('2031-01-01');
  await create.getByLabel('Tags').fill('team=data');
  await create.getByLabel('Parallel requests').fill('4');
  await create.getByLabel('Guardrails').fill('pii_strict, -secrets');
  await page.getByRole('button', { name: 'Create key' }).click();
  await page.locator('[data-created-key=batch]').waitFor();
  const batch = (await adminJson(gw, 'GET', '/v1/admin/keys')).body.data.find((k: any) => k.name === 'batch');
  t.like(batch, {
    models: ['gpt-4o', 'text-*'],
    requests_per_minute: 30,
    tokens_per_minute: 50000,
    budget: 12.5,
    budget_period: 'weekly',
    expires_at: '2031-01-01T00:00:00Z',
    tags: { team: 'data' },
    max_parallel_requests: 4,
    guardrails: ['pii_strict', '-secrets'],
  });
  t.deepEqual(problems, []);

  // phone width: no card wider than its box
  await page.setViewportSize({ width: 390, height: 844 });
  await page.locator('tr[data-key=team]').getByRole('button', { name: 'Manage' }).click();
  await panel.waitFor();
  const overflow = await page.evaluate<string[]>(OVERFLOWING);
  t.deepEqual(overflow, []);
  await screenshot(t, page, 'keys-manage-phone');
});

for (const colorScheme of ['light', 'dark'] as const)
  test(`the Alerts page lists a budget alert as it fired, with its webhook and rules (${colorScheme})`, async (t) => {
    const hook = await startUpstream((_req, res) => void res.end('ok'));
    t.teardown(() => hook.close());
    const up = await openaiUpstream({ usageOf });
    const gw = await gatewayWith(
      t,
      up,
      `${EXTENSIONS}
[extensions.alerts]
check_interval_seconds = 0.1
[[extensions.alerts.webhooks]]
name = "ops-slack"
url = "${hook.origin}/hook"
format = "slack"
`.replace(`[extensions.budget]\ndefault_budget = 5.0`, `[extensions.budget]\ndefault_budget = 0.006`),
    );
    const b = await browserFor(t, { colorScheme, viewport: { width: 390, height: 844 } });
    if (!b) return;
    // $0.0035 of $0.006: past 50%
    t.is((await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI, max_tokens: 1 }, KEY)).status, 200);
    const page = b.context.pages()[0] ?? (await b.context.newPage());
    await signInTo(page, gw.url, 'alerts', 'Alerts');
    const row = page.locator('tr[data-alert^="budget:default:"]');
    await row.waitFor({ timeout: 15_000 });
    t.regex((await row.textContent()) ?? '', /warning.*budget.*key 'default' has spent 58% of its \$0\.006 lifetime budget \(threshold 50%\)/);
    t.regex((await page.locator('ul.plain').first().textContent()) ?? '', /ops-slack\s*slack/);
    t.deepEqual(await page.evaluate<string[]>(OVERFLOWING), []);
    t.true(await page.evaluate<boolean>('document.documentElement.scrollWidth <= innerWidth + 1'), 'the page fits 390 px');
    await screenshot(t, page, `alerts-phone-${colorScheme}`);
    t.is(hook.received.length, 1);
  });

test('Keys lists each key by its secret’s first characters, never a hash, and a stored key gw cannot load with its reason; at 1440 and 390 px', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-ui-keys-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const toml = baseConfig('[providers.mock]\nmodels = ["mock-1"]\ndelay_ms = 0\n[extensions.usage]\n');
  await writeFile(join(dir, 'gateway.toml'), toml);
  // a record an older gw wrote: 40 tags, where 32 is the most
  const opened = await openStore(await loadConfig(join(dir, 'gateway.toml')), createLogger('error'));
  const tags = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`t${i}`, 'v']));
  await opened.store.namespace('admin').set('key:legacy', JSON.stringify({ hash: 'b'.repeat(64), settings: { tags } }));
  await opened.store.close();
  const gw = await startGateway(toml, { dir });
  t.teardown(() => gw.stop({ keepDir: true }));
  const created = await adminJson(gw, 'POST', '/v1/admin/keys', { name: 'team' });
  const secret: string = created.body.key;

  for (const width of [1440, 390]) {
    const b = await browserFor(t, { viewport: { width, height: 900 } });
    if (!b) return;
    const page = await b.context.newPage();
    await signInTo(page, gw.url, 'keys', 'Keys');
    const team = page.locator('tr[data-key=team] code.key-prefix');
    await team.waitFor();
    t.is(await team.textContent(), `${secret.slice(0, 8)}…`, `${width} px`);
    t.is(await page.locator('tr[data-key=default] code.key-prefix').textContent(), `${KEY.slice(0, 8)}…`);
    const legacy = page.locator('tr[data-key=legacy]');
    t.regex(
      (await legacy.textContent()) ?? '',
      /unreadable.*Stored, but gw cannot load it: invalid settings: tags: at most 32 tags\. Requests with its secret get 401/,
    );
    const text = (await page.locator('main').textContent()) ?? '';
    t.false(text.includes('sha256') || text.includes('b'.repeat(12)) || text.includes(secret), 'no hash, no secret');
    t.deepEqual(await page.evaluate<string[]>(OVERFLOWING), [], `${width} px: no panel overflows`);
    t.true(await page.evaluate<boolean>('document.documentElement.scrollWidth <= innerWidth + 1'), `the page fits ${width} px`);
    await screenshot(t, page, `keys-prefix-unreadable-${width}`);
  }
  // the way out: revoke it, as the row says
  const b = await browserFor(t, { viewport: { width: 1440, height: 900 } });
  if (!b) return;
  const page = await b.context.newPage();
  await signInTo(page, gw.url, 'keys', 'Keys');
  const legacy = page.locator('tr[data-key=legacy]');
  await legacy.getByRole('button', { name: 'Revoke' }).click();
  await legacy.getByRole('button', { name: 'Revoke legacy' }).click();
  await page.getByText('Key legacy revoked').waitFor();
  t.is(await page.locator('tr[data-key=legacy]').count(), 0);
  t.is((await adminJson(gw, 'GET', '/v1/admin/keys')).body.data.length, 3);
});
