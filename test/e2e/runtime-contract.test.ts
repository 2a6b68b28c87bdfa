/**
 * The defects the seams between core, runtime and plugins used to hide (issue 15), each
 * pinned by a test that fails without its fix:
 *   - a bail tap returning null skipped every later tap (a budget bypass);
 *   - a reload did not reach the circuit breakers of unchanged providers;
 *   - a request could see two configs (a reload between admission and dispatch);
 *   - anthropic truncations were missing from gw_upstream_errors_total;
 *   - plugins got the gateway's secrets.
 */
import { writeFile } from 'node:fs/promises';
import test from 'ava';
import { ADMIN_TOKEN, baseConfig, KEY, startGateway } from '../helpers/gateway.ts';
import { fixture, replyJson, replySse, startUpstream } from '../helpers/upstream.ts';
import { admin, client, HI, json, openaiUpstream, post, providerSection } from '../helpers/ext-helpers.ts';
import { scrape, value } from './metrics-helpers.ts';

test('a tap returning null before budget is a plugin error (500 naming it), never a budget bypass', async (t) => {
  const up = await openaiUpstream({ usageOf: () => ({ prompt_tokens: 100_000, completion_tokens: 0 }) });
  // each request costs $0.40: a $1 budget admits 3 (spent 0, 0.4, 0.8 < 1), then refuses
  const gw = await startGateway(
    baseConfig(`${providerSection(up)}\n[pricing."gpt-4o"]\ninput_per_mtok = 4.0\noutput_per_mtok = 0.0\n[extensions.budget]\ndefault_budget = 1.0\n`),
  );
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  const hooks = gw.running.gateway.hooks;
  let armed = true;
  hooks.onRequest.tapPromise({ name: 'sloppy-plugin', before: 'budget' }, async () => (armed ? (null as never) : undefined));

  const r = await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI, max_tokens: 1 });
  t.is(r.status, 500);
  const e = (await json(r)).error;
  t.is(e.code, 'plugin_contract_violation');
  t.regex(e.message, /plugin 'sloppy-plugin' broke the onRequest contract: a tap must return undefined or an EarlyResponse/);
  t.is(up.received.length, 0, 'nothing reached the upstream');

  armed = false;
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++) statuses.push((await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI, max_tokens: 1 })).status);
  t.deepEqual(statuses, [200, 200, 200, 429, 429]);
  const budget = (await admin(gw, 'GET', '/v1/budget')).body.find((b: { key: string }) => b.key === 'default');
  t.is(budget.spent_usd, 1.2);
});

test('an onCacheLookup tap answering something that is not a cached response fails the request loudly', async (t) => {
  const up = await openaiUpstream();
  const gw = await startGateway(baseConfig(`${providerSection(up)}\n[extensions.cache]\n`));
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  gw.running.gateway.hooks.onCacheLookup.tapPromise({ name: 'odd-cache', before: 'cache' }, async () => ({ nope: true }) as never);
  const r = await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI });
  t.is(r.status, 500);
  t.regex((await json(r)).error.message, /plugin 'odd-cache' broke the onCacheLookup contract/);
});

test('a reload that changes [routing] breaker settings reaches providers whose own section did not change', async (t) => {
  const up = await startUpstream((_r, res) => replyJson(res, 500, { error: { message: 'boom' } }));
  const routing = (n: number) => `[routing]\nbreaker_failures = ${n}\nbreaker_cooldown_seconds = 60\n`;
  const gw = await startGateway(baseConfig(`${providerSection(up, ['gpt-4o'])}\n${routing(5)}`));
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  const provider = gw.running.gateway.snapshot.table.providers.get('up');
  await writeFile(gw.configPath, baseConfig(`${providerSection(up, ['gpt-4o'])}\n${routing(1)}`));
  t.is((await admin(gw, 'POST', '/v1/admin/reload')).status, 200);
  t.is(gw.running.gateway.snapshot.table.providers.get('up'), provider, 'the unchanged provider was kept');

  t.is((await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI })).status, 502);
  // one failure opened the circuit: the next request is refused without calling the upstream
  const second = await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI });
  t.is(second.status, 503);
  t.is((await json(second)).error.code, 'circuit_open');
  t.is(up.received.length, 1);
  const listed = (await admin(gw, 'GET', '/v1/admin/providers')).body.data[0];
  t.is(listed.circuit, 'open');
});

test('a reload between admission and dispatch does not reach a request already admitted: it uses one snapshot to the end', async (t) => {
  const one = await startUpstream((_r, res) => replyJson(res, 200, JSON.parse(fixture('openai/spec-examples/chat.default.response.json'))));
  const two = await startUpstream((_r, res) => replyJson(res, 200, JSON.parse(fixture('openai/spec-examples/chat.default.response.json'))));
  const section = (origin: string) => `[providers.up]\napi_key = "sk-upstream-secret-value"\nbase_url = "${origin}/v1"\nmax_retries = 0\nmodels = ["gpt-4o"]\n`;
  const gw = await startGateway(baseConfig(section(one.origin)));
  t.teardown(async () => {
    await gw.stop();
    await one.close();
    await two.close();
  });
  let reloadNow = true;
  // inject the reload from a hook: while the first request waits in onRequest
  gw.running.gateway.hooks.onRequest.tapPromise('reloader', async () => {
    if (!reloadNow) return undefined;
    reloadNow = false;
    await writeFile(gw.configPath, baseConfig(section(two.origin)));
    t.is((await admin(gw, 'POST', '/v1/admin/reload')).status, 200);
    return undefined;
  });
  const c = client(gw);
  await c.chat.completions.create({ model: 'gpt-4o', messages: HI });
  t.is(one.received.length, 1, 'the admitted request went where its snapshot said');
  t.is(two.received.length, 0);
  await c.chat.completions.create({ model: 'gpt-4o', messages: HI });
  t.is(two.received.length, 1, 'the next request sees the reload');
});

test('anthropic truncations are counted in gw_upstream_errors_total, before and after the first byte', async (t) => {
  const basic = fixture('anthropic/anthropic-sdk-typescript/basic.sse');
  let cut = 0;
  const up = await startUpstream((req, res) => {
    // first call: the stream ends before message_stop after some events; second: ends with nothing at all
    if (req.json?.stream)
      return replySse(
        res,
        basic
          .split('\n\n')
          .slice(0, cut++ === 0 ? 4 : 0)
          .join('\n\n'),
      );
    return replyJson(res, 200, {});
  });
  const gw = await startGateway(
    baseConfig(`[providers.claude]\nkind = "anthropic"\napi_key = "sk-ant-0123456789"\nbase_url = "${up.origin}"\nmax_retries = 0\nmodels = ["claude-x"]\n`),
  );
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  const stream = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'claude-x', stream: true, messages: HI }),
  });
  t.is(stream.status, 200);
  t.regex(await stream.text(), /"code":"upstream_truncated"/);
  const empty = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'claude-x', stream: true, messages: HI }),
  });
  t.is(empty.status, 502);
  t.is((await json(empty)).error.code, 'upstream_truncated');
  const m = await scrape(gw.url, ADMIN_TOKEN);
  t.is(value(m, 'gw_upstream_errors_total', { provider: 'claude', status: 'upstream_truncated' }), 2);
});

test('plugins see no secrets: the gateway view they get has no config, admin token, key or provider api key', async (t) => {
  const up = await openaiUpstream();
  const gw = await startGateway(baseConfig(`${providerSection(up)}\n[pricing."gpt-4o"]\ninput_per_mtok = 1\noutput_per_mtok = 1\n`));
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  const info = gw.running.gateway.info as unknown as Record<string, unknown>;
  t.false('config' in info);
  const seen: unknown[] = [];
  for (const [k, v] of Object.entries(info)) seen.push(k, typeof v === 'function' ? (v as (m: string) => unknown)('gpt-4o') : v);
  const text = JSON.stringify(seen);
  for (const secret of [ADMIN_TOKEN, KEY, 'sk-upstream-secret-value']) t.false(text.includes(secret), `leaked ${secret.slice(0, 8)}…`);
  t.true(text.includes('"default"'), 'key names are shown');
});
