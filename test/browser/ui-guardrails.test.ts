/**
 * The console shows what the guardrails found (issue 41): a request's details list each
 * outcome (check, action, entity type, count), never the matched text. Headless Chromium via
 * playwright-core (test/helpers/browser.ts).
 */
import test from 'ava';
import { browserFor } from '../helpers/browser.ts';
import { signIn } from '../helpers/console-page.ts';
import { client, providerSection } from '../helpers/ext-helpers.ts';
import { baseConfig, startGateway } from '../helpers/gateway.ts';
import { fixtureJson, replyJson, startUpstream } from '../helpers/upstream.ts';

const EMAIL = 'dana.whitfield@acme-robotics.com';

test('request details: the guardrails outcomes, not the text they found', async (t) => {
  const answer = fixtureJson('openai/spec-examples/chat.default.response.json');
  const up = await startUpstream((req, res) => replyJson(res, 200, { ...answer, model: req.json.model }));
  const gw = await startGateway(
    baseConfig(
      `${providerSection(up, ['gpt-4o'])}\n[extensions.request_log]\n\n[extensions.guardrails.checks.pii]\ntype = "pii"\naction = "mask"\nentities = ["email"]\n`,
    ),
  );
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  const b = await browserFor(t);
  if (!b) return;
  await client(gw).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: `mail ${EMAIL}` }] });
  t.false(up.received[0]!.body.includes(EMAIL));

  const page = b.context.pages()[0] ?? (await b.context.newPage());
  await signIn(page, gw.url);
  await page.goto(`${gw.url}/ui/#/requests`);
  await page.getByRole('heading', { level: 1, name: 'Requests' }).waitFor();
  await page.locator('[data-count="1"]').waitFor();
  await page.locator('tr[data-request-id]').first().click();
  const detail = page.getByRole('complementary', { name: 'Request details' });
  const value = detail.locator('dt', { hasText: 'Guardrails' }).locator('xpath=following-sibling::dd[1]');
  t.is(((await value.textContent()) ?? '').trim(), 'pii mask email ×1');
  t.false((await detail.textContent())!.includes(EMAIL));
});
