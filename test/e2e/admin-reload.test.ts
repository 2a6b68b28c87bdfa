/**
 * Config reload through POST /v1/admin/reload: providers, aliases, keys and pricing change
 * without a restart; a bad file is refused with its error and the running config kept.
 */
import { writeFile } from 'node:fs/promises';
import test from 'ava';
import { ADMIN_TOKEN, baseConfig, KEY, KEY2, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { fixture, replyJson, startUpstream } from '../helpers/upstream.ts';

const KEY3 = 'sk-test-key-third-0123456789abcdefgh';

async function reload(gw: TestGateway): Promise<{ status: number; json: any }> {
  const res = await fetch(`${gw.url}/v1/admin/reload`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  return { status: res.status, json: await res.json() };
}

async function chatStatus(gw: TestGateway, model: string, key = KEY): Promise<number> {
  const res = await fetch(`${gw.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });
  await res.arrayBuffer();
  return res.status;
}

const providerA = (origin: string) => `[providers.a]\nkind = "openai"\napi_key = "sk-a"\nbase_url = "${origin}/v1"\nmodels = ["model-a"]\n`;

test('a reload applies providers, aliases, keys and pricing at once; unchanged providers are kept', async (t) => {
  const up = await startUpstream((_req, res) => replyJson(res, 200, fixture('openai/spec-examples/chat.default.response.json')));
  const gw = await startGateway(baseConfig(providerA(up.origin)));
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  const g = gw.running.gateway;
  const a = g.snapshot.table.providers.get('a');
  t.is(await chatStatus(gw, 'fast'), 404);

  const next = `listen = "127.0.0.1:0"\nadmin_token = "${ADMIN_TOKEN}"\ndata_dir = "data"\n\n[keys.default]\nkey = "${KEY}"\n\n[keys.third]\nkey = "${KEY3}"\n\n${providerA(up.origin)}
[providers.b]\nkind = "openai"\napi_key = "sk-b"\nbase_url = "${up.origin}/v1"\nmodels = ["model-b"]\n\n[aliases]\nfast = "model-b"\n\n[pricing."model-b"]\ninput_per_mtok = 1.5\noutput_per_mtok = 2.0\n`;
  await writeFile(gw.configPath, next);
  const r = await reload(gw);
  t.is(r.status, 200);
  t.like(r.json, { reloaded: true, providers: 2, models: 2, keys: 2, warnings: [] });

  t.is(await chatStatus(gw, 'fast'), 200);
  t.is(up.received.at(-1)!.json.model, 'model-b');
  t.is(up.received.at(-1)!.headers.authorization, 'Bearer sk-b');
  t.is(await chatStatus(gw, 'model-a', KEY3), 200);
  t.is(await chatStatus(gw, 'model-a', KEY2), 401, 'a key removed from the file is refused');
  t.is(g.snapshot.table.providers.get('a'), a, 'an unchanged section keeps its provider');
  t.like(g.snapshot.prices.priceFor('b', 'model-b'), { source: 'config', entry: 'model-b' }, 'the reloaded [pricing] applies');
  t.is(g.info.maxCost('model-b', 1e6, 1e6), 3.5);
});

test('a bad file is refused with its error and the running config keeps serving', async (t) => {
  const up = await startUpstream((_req, res) => replyJson(res, 200, fixture('openai/spec-examples/chat.default.response.json')));
  const gw = await startGateway(baseConfig(`${providerA(up.origin)}\n[aliases]\nfast = "model-a"\n`));
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  const good = gw.running.gateway.snapshot.config;

  await writeFile(gw.configPath, `${baseConfig(providerA(up.origin))}\n[aliases\n`);
  const syntax = await reload(gw);
  t.is(syntax.status, 400);
  t.is(syntax.json.error.code, 'config_invalid');
  t.regex(syntax.json.error.message, /gateway\.toml: TOML syntax error at line \d+/);

  await writeFile(gw.configPath, baseConfig(`[providers.x]\napi_key = "k"\nmodels = ["m"]\n`));
  const kind = await reload(gw);
  t.is(kind.status, 400);
  t.regex(kind.json.error.message, /providers\.x: no built-in provider kind 'x' and the npm package gw-plugin-x is not installed/);

  await writeFile(gw.configPath, baseConfig(`[providers.y]\nkind = "openai"\napi_key = "\${GW_TEST_UNSET_VAR}"\nmodels = ["m"]\n`));
  const unset = await reload(gw);
  t.is(unset.status, 400);
  t.regex(unset.json.error.message, /GW_TEST_UNSET_VAR/);

  t.is(gw.running.gateway.snapshot.config, good);
  t.is(await chatStatus(gw, 'fast'), 200);
  t.is(await chatStatus(gw, 'model-a', KEY2), 200);
});

test('restart-only settings keep their running values with a warning; a file provider shadows a runtime one', async (t) => {
  const up = await startUpstream((_req, res) => replyJson(res, 200, fixture('openai/spec-examples/chat.default.response.json')));
  const gw = await startGateway(baseConfig());
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  const created = await fetch(`${gw.url}/v1/admin/providers`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'a', kind: 'openai', api_key: 'sk-runtime', base_url: `${up.origin}/v1`, models: ['rt-model'] }),
  });
  t.is(created.status, 201);

  await writeFile(
    gw.configPath,
    baseConfig(providerA(up.origin)).replace('listen = "127.0.0.1:0"', 'listen = "127.0.0.1:1"').replace('data_dir = "data"', 'data_dir = "elsewhere"'),
  );
  const r = await reload(gw);
  t.is(r.status, 200);
  t.true(r.json.warnings.some((w: string) => w.startsWith('listen changed')));
  t.true(r.json.warnings.some((w: string) => w.startsWith('data_dir changed')));
  t.true(r.json.warnings.some((w: string) => w.includes("runtime provider 'a' is shadowed")));
  t.is(gw.running.gateway.snapshot.config.listen, '127.0.0.1:0');
  t.is(gw.running.gateway.snapshot.config.data_dir, 'data');
  t.is(await chatStatus(gw, 'model-a'), 200);
  t.is(await chatStatus(gw, 'rt-model'), 404);
  t.is(up.received.at(-1)!.headers.authorization, 'Bearer sk-a');
});
