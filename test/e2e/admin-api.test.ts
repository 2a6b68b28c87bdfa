/**
 * The admin API (docs/design.md "Routes", "Runtime changes"): providers and keys created and
 * removed while gw serves, persisted in the store, listed with their source and masked.
 */
import test from 'ava';
import OpenAI from 'openai';
import { openLevelStore } from '../../plugins/stores/level/level.ts';
import { hashSecret } from '../../lib/keys.ts';
import { ADMIN_TOKEN, baseConfig, KEY, KEY2, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { fixture, replyJson, replySse, startUpstream, toSse, type MockUpstream } from '../helpers/upstream.ts';

const MODELS_LIST = 'openai/spec-examples/models.list.response.json';
const COMPLETION = 'openai/spec-examples/chat.default.response.json';
const UP_KEY = 'sk-upstream-secret-0123456789abcdef';

/** A common-format upstream: /v1/models from the spec example, chat from the spec's default response. */
function commonUpstream(): Promise<MockUpstream> {
  return startUpstream((req, res) => {
    if (req.method === 'GET' && req.url === '/v1/models') return replyJson(res, 200, fixture(MODELS_LIST));
    if (req.method === 'POST' && req.url === '/v1/chat/completions') return replyJson(res, 200, fixture(COMPLETION));
    replyJson(res, 404, { error: { message: `no ${req.url}` } });
  });
}

async function call(gw: TestGateway, method: string, path: string, body?: unknown, token = ADMIN_TOKEN): Promise<{ status: number; json: any; text: string }> {
  const res = await fetch(gw.url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined, text };
}

function chat(gw: TestGateway, model: string, key = KEY) {
  return new OpenAI({ baseURL: gw.baseURL, apiKey: key, maxRetries: 0 }).chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] });
}

const fileProvider = (origin: string) =>
  `[providers.fileup]\nkind = "openai"\napi_key = "sk-file-provider-secret-0123456789"\nbase_url = "${origin}/v1"\nmodels = ["file-model"]\n`;

test('a provider created with models serves at once, is listed masked with its source, and survives a restart', async (t) => {
  const up = await commonUpstream();
  const gw = await startGateway(baseConfig(fileProvider(up.origin)));
  let gw2: TestGateway | undefined;
  t.teardown(async () => {
    await gw2?.stop();
    await gw.stop();
    await up.close();
  });

  const created = await call(gw, 'POST', '/v1/admin/providers', {
    name: 'rt',
    kind: 'selfhosted',
    api_key: UP_KEY,
    base_url: `${up.origin}/v1`,
    models: ['rt-model'],
  });
  t.is(created.status, 201);
  const { health, ...listed } = created.json;
  t.deepEqual(listed, {
    name: 'rt',
    kind: 'selfhosted',
    source: 'runtime',
    base_url: `${up.origin}/v1`,
    models: ['rt-model'],
    api_key: 'sk-ups…cdef',
    circuit: 'closed',
    inflight: 0,
    latency_ms: null,
  });
  t.like(health, { last_5m: { requests: 0, served: 0, latency_ms: null }, minutes: [] });

  const answer = await chat(gw, 'rt-model');
  t.is(answer.choices[0]!.message.content, 'Hello! How can I assist you today?');
  const sent = up.received.find((r) => r.url === '/v1/chat/completions')!;
  t.is(sent.headers.authorization, `Bearer ${UP_KEY}`);
  t.is(sent.json.model, 'rt-model');

  const list = await call(gw, 'GET', '/v1/admin/providers');
  t.is(list.status, 200);
  t.deepEqual(
    list.json.data.map((p: any) => [p.name, p.source, p.kind]),
    [
      ['fileup', 'file', 'openai'],
      ['rt', 'runtime', 'selfhosted'],
    ],
  );
  t.false(list.text.includes(UP_KEY));
  t.false(list.text.includes('sk-file-provider-secret-0123456789'));

  await gw.stop({ keepDir: true });
  gw2 = await startGateway(baseConfig(fileProvider(up.origin)), { dir: gw.dir });
  const again = await call(gw2, 'GET', '/v1/admin/providers');
  t.deepEqual(
    again.json.data.map((p: any) => p.name),
    ['fileup', 'rt'],
  );
  t.is((await chat(gw2, 'rt-model')).choices[0]!.finish_reason, 'stop');
});

test('a provider created without models gets them from the upstream model list', async (t) => {
  const up = await commonUpstream();
  const gw = await startGateway(baseConfig());
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  const created = await call(gw, 'POST', '/v1/admin/providers', { name: 'disc', kind: 'openai', api_key: UP_KEY, base_url: `${up.origin}/v1` });
  t.is(created.status, 201);
  t.deepEqual(created.json.models, ['model-id-0', 'model-id-1', 'model-id-2']);
  const asked = up.received.filter((r) => r.method === 'GET');
  t.is(asked.length, 1);
  t.is(asked[0]!.url, '/v1/models');
  t.is(asked[0]!.headers.authorization, `Bearer ${UP_KEY}`);
  t.is((await chat(gw, 'model-id-1')).object, 'chat.completion');
  const models = await call(gw, 'GET', '/v1/admin/models');
  t.deepEqual(
    models.json.data.map((m: any) => [m.id, m.owned_by]),
    [
      ['model-id-0', 'disc'],
      ['model-id-1', 'disc'],
      ['model-id-2', 'disc'],
    ],
  );
});

test('a failed discovery answers with the URL and the status that failed, and saves nothing', async (t) => {
  const up = await startUpstream((_req, res) =>
    replyJson(res, 401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } }),
  );
  const gw = await startGateway(baseConfig());
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  const r = await call(gw, 'POST', '/v1/admin/providers', { name: 'bad', kind: 'openai', api_key: 'sk-wrong-0123456789abcdef', base_url: `${up.origin}/v1` });
  t.is(r.status, 502);
  t.regex(r.json.error.message, new RegExp(`GET ${up.origin}/v1/models answered HTTP 401`));
  t.is(r.json.error.upstream_status, 401);
  t.false(r.text.includes('sk-wrong-0123456789abcdef'));
  t.deepEqual((await call(gw, 'GET', '/v1/admin/providers')).json.data, []);

  const dead = await call(gw, 'POST', '/v1/admin/providers', { name: 'dead', kind: 'openai', api_key: 'x', base_url: 'http://127.0.0.1:9/v1' });
  t.is(dead.status, 502);
  t.regex(dead.json.error.message, /ECONNREFUSED.*127\.0\.0\.1:9\/v1\/models/);
});

test('invalid provider bodies and name clashes are refused before anything is saved', async (t) => {
  const up = await commonUpstream();
  const gw = await startGateway(baseConfig(fileProvider(up.origin)));
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  const noKey = await call(gw, 'POST', '/v1/admin/providers', { name: 'p', kind: 'openai', base_url: `${up.origin}/v1`, models: ['m'] });
  t.is(noKey.status, 400);
  t.is(noKey.json.error.param, 'api_key');
  t.regex(noKey.json.error.message, /api_key/);

  const unknownKind = await call(gw, 'POST', '/v1/admin/providers', { name: 'p', kind: 'nosuchkind', api_key: 'x', models: ['m'] });
  t.is(unknownKind.status, 400);
  t.regex(unknownKind.json.error.message, /no built-in provider kind 'nosuchkind' and the npm package gw-plugin-nosuchkind is not installed; give base_url/);

  const badUrl = await call(gw, 'POST', '/v1/admin/providers', { name: 'p', kind: 'openai', api_key: 'x', base_url: 'ftp://x', models: ['m'] });
  t.is(badUrl.status, 400);
  t.is(badUrl.json.error.param, 'base_url');

  const badName = await call(gw, 'POST', '/v1/admin/providers', { name: 'a/b', api_key: 'x', models: ['m'] });
  t.is(badName.status, 400);
  t.is(badName.json.error.param, 'name');

  const clashFile = await call(gw, 'POST', '/v1/admin/providers', { name: 'fileup', kind: 'openai', api_key: 'x', base_url: `${up.origin}/v1`, models: ['m'] });
  t.is(clashFile.status, 409);
  t.regex(clashFile.json.error.message, /config file/);

  t.is((await call(gw, 'POST', '/v1/admin/providers', { name: 'p', kind: 'openai', api_key: 'x', base_url: `${up.origin}/v1`, models: ['m'] })).status, 201);
  t.is((await call(gw, 'POST', '/v1/admin/providers', { name: 'p', kind: 'openai', api_key: 'x', base_url: `${up.origin}/v1`, models: ['m'] })).status, 409);

  const delFile = await call(gw, 'DELETE', '/v1/admin/providers/fileup');
  t.is(delFile.status, 409);
  t.regex(delFile.json.error.message, /defined in the config file .*gateway\.toml/);
  t.is((await call(gw, 'DELETE', '/v1/admin/providers/nope')).status, 404);

  const text = await fetch(`${gw.url}/v1/admin/providers`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'text/plain' },
    body: 'x',
  });
  t.is(text.status, 415);
  t.true(up.received.every((r) => r.method !== 'GET'));
});

test('admin routes need the admin token: none → 401, wrong → 401, a gateway key → 403', async (t) => {
  const gw = await startGateway(baseConfig());
  t.teardown(() => gw.stop());
  for (const path of ['/v1/admin/providers', '/v1/admin/keys', '/v1/admin/models']) {
    t.is((await fetch(gw.url + path)).status, 401, path);
    t.is((await call(gw, 'GET', path, undefined, 'sk-not-the-admin-token-0123456789')).status, 401, path);
    const asKey = await call(gw, 'GET', path, undefined, KEY);
    t.is(asKey.status, 403, path);
    t.is(asKey.json.error.type, 'permission_error');
  }
  t.is((await call(gw, 'POST', '/v1/admin/keys', { name: 'x' }, KEY)).status, 403);
  t.is((await call(gw, 'POST', '/v1/admin/reload', undefined, KEY)).status, 403);
});

test('a runtime key works at once, is stored only as a hash, and is refused on the next request after revocation', async (t) => {
  const up = await commonUpstream();
  const gw = await startGateway(baseConfig(fileProvider(up.origin)));
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });

  const created = await call(gw, 'POST', '/v1/admin/keys', { name: 'ci' });
  t.is(created.status, 201);
  const key: string = created.json.key;
  t.regex(key, /^sk-[A-Za-z0-9_-]{32,}$/);
  t.is(created.json.name, 'ci');
  t.is((await chat(gw, 'file-model', key)).object, 'chat.completion');

  const list = await call(gw, 'GET', '/v1/admin/keys');
  t.deepEqual(
    list.json.data.map((k: any) => [k.name, k.source]),
    [
      ['default', 'file'],
      ['second', 'file'],
      ['ci', 'runtime'],
    ],
  );
  t.false(list.text.includes(key));
  t.false(list.text.includes(KEY));
  // listed by the first characters of their secrets, as the holder can match them: never a hash
  t.deepEqual(
    list.json.data.map((k: any) => k.key),
    [`${KEY.slice(0, 8)}…`, `${KEY2.slice(0, 8)}…`, `${key.slice(0, 8)}…`],
  );
  t.false(list.text.includes('sha256'));

  t.is((await call(gw, 'POST', '/v1/admin/keys', { name: 'ci' })).status, 409);
  t.is((await call(gw, 'POST', '/v1/admin/keys', { name: 'default' })).status, 409);
  const fileKey = await call(gw, 'DELETE', '/v1/admin/keys/default');
  t.is(fileKey.status, 409);
  t.regex(fileKey.json.error.message, /defined in the config file/);
  t.is((await call(gw, 'DELETE', '/v1/admin/keys/nope')).status, 404);

  t.is((await call(gw, 'DELETE', '/v1/admin/keys/ci')).status, 204);
  const refused = await fetch(`${gw.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'file-model', messages: [{ role: 'user', content: 'hi' }] }),
  });
  t.is(refused.status, 401);
  t.is(up.received.filter((r) => r.url === '/v1/chat/completions').length, 1);

  // the store holds hashes only: look at every value once the gateway has released it
  const again = await call(gw, 'POST', '/v1/admin/keys', { name: 'kept' });
  await gw.stop({ keepDir: true });
  const store = await openLevelStore(`${gw.dir}/data`);
  const values: string[] = [];
  for await (const [k, v] of store.entries('admin:')) values.push(`${k}=${v}`);
  await store.close();
  t.true(
    values.some(
      (v) =>
        v ===
        `admin:key:kept={"hash":"${hashSecret(again.json.key)}","prefix":"${again.json.key.slice(0, 8)}","created_at":"${again.json.created_at}","settings":{}}`,
    ),
  );
  t.false(values.some((v) => v.includes(again.json.key)));
});

test('deleting a provider lets a stream in flight finish; the next request gets 404', async (t) => {
  const chunks = [0, 1, 2, 3, 4].map((i) => ({
    id: 'c1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'slow',
    choices: [{ index: 0, delta: { content: `w${i} ` }, finish_reason: i === 4 ? 'stop' : null }],
  }));
  const up = await startUpstream((_req, res) => replySse(res, toSse(chunks), { delayMs: 60 }));
  const gw = await startGateway(baseConfig());
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  t.is(
    (await call(gw, 'POST', '/v1/admin/providers', { name: 'slowp', kind: 'openai', api_key: 'x', base_url: `${up.origin}/v1`, models: ['slow'] })).status,
    201,
  );
  const client = new OpenAI({ baseURL: gw.baseURL, apiKey: KEY, maxRetries: 0 });
  const stream = await client.chat.completions.create({ model: 'slow', messages: [{ role: 'user', content: 'hi' }], stream: true });
  let text = '';
  let deleted = false;
  for await (const c of stream) {
    text += c.choices[0]?.delta?.content ?? '';
    if (!deleted) {
      deleted = true;
      t.is((await call(gw, 'DELETE', '/v1/admin/providers/slowp')).status, 204);
    }
  }
  t.is(text, 'w0 w1 w2 w3 w4 ');
  const after = await fetch(`${gw.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'slow', messages: [{ role: 'user', content: 'hi' }] }),
  });
  t.is(after.status, 404);
  t.deepEqual((await call(gw, 'GET', '/v1/admin/providers')).json.data, []);
});
