/**
 * Money has documented upper bounds (issue 38 item 3, defect #7: a key budget of 1e308 or a
 * price of 1e308 per Mtok was accepted, gave `Infinity` in `x-gw-cost-usd` and `null` in
 * /v1/budget, and after a restart the key's spend read 0, its spent budget open again).
 * Budgets are at most $1e9 and prices at most $1e6 per million tokens, in the config and the
 * admin API alike, refused naming the field and the bound; an upstream's absurd usage is
 * charged as a bounded count, so spend stays finite and survives a restart.
 */
import test from 'ava';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { baseConfig, startGateway } from '../helpers/gateway.ts';
import { admin, adminJson, HI, json, openaiUpstream, post, providerSection } from '../helpers/ext-helpers.ts';
import { replyJson, startUpstream } from '../helpers/upstream.ts';

const PRICING = '[pricing."gpt-4o"]\ninput_per_mtok = 1\noutput_per_mtok = 1\n';

test('config: a budget over $1e9 or a price over $1e6 per Mtok is a config error naming the key path and the bound', async (t) => {
  const up = await openaiUpstream();
  t.teardown(() => up.close());
  const cases: Array<[string, RegExp]> = [
    [`${PRICING}[extensions.budget]\ndefault_budget = 1e308\n`, /extensions\.budget\.default_budget: .*<= 1000000000/],
    [
      `${PRICING}[extensions.budget]\ndefault_budget = 1\n[extensions.budget.keys.default]\nbudget = 1e308\n`,
      /extensions\.budget\.keys\.default\.budget: .*<= 1000000000/,
    ],
    ['[pricing."gpt-4o"]\ninput_per_mtok = 1e308\noutput_per_mtok = 1\n', /pricing\.gpt-4o\.input_per_mtok: .*<= 1000000 /],
    [
      '[pricing."gpt-4o"]\ninput_per_mtok = 1\noutput_per_mtok = 1\ntiers = [{ above_tokens = 1000, output_per_mtok = 2e6 }]\n',
      /pricing\.gpt-4o\.tiers\[0\]\.output_per_mtok: .*<= 1000000 /,
    ],
  ];
  for (const [extra, expected] of cases) {
    const err = await t.throwsAsync(startGateway(baseConfig(`${providerSection(up)}\n${extra}`)));
    t.regex(err!.message, expected);
  }
  // a key's own budget, and a provider's own price
  const keyErr = await t.throwsAsync(startGateway(baseConfig(`${providerSection(up)}`).replace('[keys.default]\n', '[keys.default]\nbudget = 1e308\n')));
  t.regex(keyErr!.message, /keys\.default\.budget: .*<= 1000000000/);
  const provErr = await t.throwsAsync(
    startGateway(baseConfig(`${providerSection(up)}[providers.up.pricing."gpt-4o"]\ninput_per_mtok = 1\noutput_per_mtok = 1e308\n`)),
  );
  t.regex(provErr!.message, /output_per_mtok: .*<= 1000000 /);
  // the bounds themselves are accepted
  const gw = await startGateway(
    baseConfig(`${providerSection(up)}\n[pricing."gpt-4o"]\ninput_per_mtok = 1e6\noutput_per_mtok = 1e6\n[extensions.budget]\ndefault_budget = 1e9\n`),
  );
  await gw.stop();
});

test('admin API: a key budget of 1e308 is 400 naming budget and the bound (POST and PATCH); a provider price of 1e308 too', async (t) => {
  const up = await openaiUpstream();
  const gw = await startGateway(baseConfig(`${providerSection(up)}\n${PRICING}[extensions.budget]\ndefault_budget = 1\n`));
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  const created = await adminJson(gw, 'POST', '/v1/admin/keys', { name: 'big', budget: 1e308 });
  t.is(created.status, 400);
  t.is(created.body.error.param, 'budget');
  t.regex(created.body.error.message, /budget.*<= 1000000000/);
  t.is((await adminJson(gw, 'POST', '/v1/admin/keys', { name: 'ok', budget: 5 })).status, 201);
  const patched = await adminJson(gw, 'PATCH', '/v1/admin/keys/ok', { budget: 1e308 });
  t.is(patched.status, 400);
  t.is(patched.body.error.param, 'budget');
  t.regex(patched.body.error.message, /<= 1000000000/);
  t.is((await adminJson(gw, 'PATCH', '/v1/admin/keys/ok', { budget: 1e9 })).status, 200);
  const provider = await adminJson(gw, 'POST', '/v1/admin/providers', {
    name: 'dear',
    kind: 'openai',
    api_key: 'sk-upstream-secret-value',
    base_url: `${up.origin}/v1`,
    models: ['gpt-4o'],
    pricing: { 'gpt-4o': { input_per_mtok: 1e308, output_per_mtok: 1 } },
  });
  t.is(provider.status, 400);
  t.regex(provider.body.error.message, /input_per_mtok.*<= 1000000 /);
  t.is((await admin(gw, 'GET', '/v1/admin/keys')).body.data.find((k: any) => k.name === 'ok').budget, 1e9);
});

test('an upstream reporting 1e400 tokens (Infinity once parsed) at the highest price: the cost is finite in the header, the log and the budget, and a restart keeps the budget spent', async (t) => {
  // the usage is raw JSON text: 1e400 parses as Infinity
  const up = await startUpstream((_req, res) => {
    replyJson(
      res,
      200,
      `{"id":"c","object":"chat.completion","created":1,"model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":1e400,"total_tokens":1e400}}`,
    );
  });
  const toml = baseConfig(
    `${providerSection(up)}\n[pricing."gpt-4o"]\ninput_per_mtok = 1e6\noutput_per_mtok = 1e6\n[extensions.request_log]\n[extensions.budget]\ndefault_budget = 1e9\n`,
  );
  const opts = { dir: await mkdtemp(join(tmpdir(), 'gw-test-')) };
  let gw = await startGateway(toml, opts);
  t.teardown(async () => {
    await gw.stop();
    await up.close();
    await rm(opts.dir, { recursive: true, force: true });
  });
  const r = await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI, max_tokens: 5 });
  t.is(r.status, 200);
  const header = Number(r.headers.get('x-gw-cost-usd'));
  t.true(Number.isFinite(header) && header > 1e9, `x-gw-cost-usd ${r.headers.get('x-gw-cost-usd')}`);
  let logged: any;
  for (let i = 0; i < 100 && !logged; i++) {
    logged = (await admin(gw, 'GET', '/v1/requests?limit=1')).body[0];
    if (!logged) await new Promise((r) => setTimeout(r, 20));
  }
  t.is(logged.cost_usd, header);
  const b = (await admin(gw, 'GET', '/v1/budget')).body.find((e: any) => e.key === 'default');
  t.is(b.spent_usd, header);
  t.true(b.remaining_usd < 0);
  const refused = await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI, max_tokens: 5 });
  t.is(refused.status, 429);
  await gw.stop({ keepDir: true });
  gw = await startGateway(toml, opts);
  t.is((await admin(gw, 'GET', '/v1/budget')).body.find((e: any) => e.key === 'default').spent_usd, header, 'a restart keeps the spend');
  const again = await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI, max_tokens: 5 });
  t.is(again.status, 429);
  t.is((await json(again)).error.code, 'budget_exceeded');
  t.is(up.received.length, 1);
});
