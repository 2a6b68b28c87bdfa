/**
 * One validation for every write, and bounds that hold in total (issue 38, items 4 and 5):
 * PATCH refuses what POST and the config refuse, so a restart never finds a record it cannot
 * load; a stored record gw cannot load is reported (startup log, the admin lists) and can be
 * deleted; a provider api_key or config header HTTP cannot send is refused where it is
 * written; dates are calendar dates on every parameter; a client's value is quoted in at most
 * 200 characters; tool declarations are capped over all of a request's tool groups.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { ConfigError } from '../../lib/config/error.ts';
import { loadConfig } from '../../server/config/load.ts';
import { createLogger } from '../../server/log.ts';
import { openStore } from '../../server/open-store.ts';
import { adminJson } from '../helpers/ext-helpers.ts';
import { ADMIN_TOKEN, baseConfig, KEY, startGateway, type TestGateway } from '../helpers/gateway.ts';

const MOCK = '[providers.mock]\nmodels = ["mock-1"]\ndelay_ms = 0\n';
const HASH = 'a'.repeat(64);

async function tempDir(t: ExecutionContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-writes-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** gw on `toml` in `dir` (kept for a restart), stopped at teardown. */
async function started(t: ExecutionContext, toml: string, dir?: string): Promise<TestGateway> {
  const gw = await startGateway(toml, { dir });
  t.teardown(() => gw.stop({ keepDir: true }));
  return gw;
}

function chat(gw: TestGateway, key: string): Promise<Response> {
  return fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'mock-1', messages: [{ role: 'user', content: 'hi' }] }),
  });
}

/** The error gw refuses to start on `toml` with (in a fresh folder under `dir`). */
async function refused(dir: string, toml: string): Promise<string> {
  const own = await mkdtemp(join(dir, 'start-'));
  const gw = await startGateway(toml, { dir: own }).catch((err: Error) => err);
  if (gw instanceof Error) return gw.message;
  await gw.stop();
  throw new Error('gw started');
}

function manyTags(n: number, from = 0): Record<string, string> {
  const tags: Record<string, string> = {};
  for (let i = from; i < from + n; i++) tags[`t${i}`] = 'v';
  return tags;
}

/** The config-error message `toml` (a file in `dir`) fails to load with. */
async function loadError(dir: string, toml: string, env: NodeJS.ProcessEnv = {}): Promise<string> {
  const file = join(dir, `bad-${Math.random().toString(36).slice(2)}.toml`);
  await writeFile(file, toml);
  try {
    await loadConfig(file, env);
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  throw new Error('the config loaded');
}

test('PATCH refuses what POST refuses (200,000 tags, 32 in total over two patches), and a restart keeps the key working', async (t) => {
  const dir = await tempDir(t);
  let gw = await startGateway(baseConfig(MOCK), { dir });
  const created = await adminJson(gw, 'POST', '/v1/admin/keys', { name: 'app', tags: { team: 'a' } });
  t.is(created.status, 201);
  const secret: string = created.body.key;

  const tags = manyTags(200_000);
  const post = await adminJson(gw, 'POST', '/v1/admin/keys', { name: 'other', tags });
  const patch = await adminJson(gw, 'PATCH', '/v1/admin/keys/app', { tags });
  t.is(post.status, 400);
  t.is(patch.status, 400);
  t.deepEqual(patch.body.error, post.body.error, 'the same error: one schema');
  t.like(patch.body.error, { code: 'invalid_request_body', param: 'tags' });
  t.regex(patch.body.error.message, /tags: at most 32 tags/);
  // the whole key is checked after the merge: 1 + 20 tags pass, 20 more do not
  t.is((await adminJson(gw, 'PATCH', '/v1/admin/keys/app', { tags: manyTags(20) })).status, 200);
  const over = await adminJson(gw, 'PATCH', '/v1/admin/keys/app', { tags: manyTags(20, 100) });
  t.is(over.status, 400);
  t.regex(over.body.error.message, /tags: at most 32 tags/);
  t.is((await chat(gw, secret)).status, 200);
  await gw.stop({ keepDir: true });

  gw = await startGateway(baseConfig(MOCK), { dir });
  t.teardown(() => gw.stop({ keepDir: true }));
  t.is((await chat(gw, secret)).status, 200, 'the key still works after a restart');
  const listed = (await adminJson(gw, 'GET', '/v1/admin/keys')).body.data.find((k: { name: string }) => k.name === 'app');
  t.is(Object.keys(listed.tags).length, 21);
  t.false('unreadable' in listed);
  t.false(
    gw.logs.some((l) => l.includes('cannot be loaded')),
    gw.logs.join(''),
  );
});

test('a stored record gw cannot load is warned about at startup, listed with its reason (never a secret), refused as a name, and deletable', async (t) => {
  const dir = await tempDir(t);
  const configPath = join(dir, 'gateway.toml');
  await writeFile(configPath, baseConfig(MOCK));
  // records an older gw wrote, or damaged ones
  const opened = await openStore(await loadConfig(configPath), createLogger('error'));
  const admin = opened.store.namespace('admin');
  await admin.set('key:legacy', JSON.stringify({ hash: HASH, created_at: '2026-01-01T00:00:00Z', settings: { tags: manyTags(40) } }));
  await admin.set('key:garbled', '{"hash": "sk-not-json');
  await admin.set('provider:broken', '{"name":"broken","section":{"api_key":"sk-provider-secret-0123456789"');
  const section = { kind: 'openai', api_key: '\uFEFFsk-bom-secret-0123456789', base_url: 'http://127.0.0.1:9/v1', models: ['bom-1'] };
  await admin.set('provider:bom', JSON.stringify({ name: 'bom', created_at: '2026-01-01T00:00:00Z', section }));
  await opened.store.close();

  const gw = await started(t, baseConfig(MOCK), dir);
  const warned = (name: string, why: RegExp) => gw.logs.some((l) => l.includes('"level":40') && l.includes(`'${name}'`) && why.test(l));
  t.true(warned('legacy', /tags: at most 32 tags/), gw.logs.join(''));
  t.true(warned('garbled', /not JSON/));
  t.true(warned('broken', /not JSON/));
  t.true(warned('bom', /api_key/));
  const secrets = ['sk-provider-secret', 'sk-bom-secret', HASH];
  for (const s of secrets) t.false(gw.logs.join('').includes(s), `${s} is not logged`);

  const keys = await adminJson(gw, 'GET', '/v1/admin/keys');
  const byName = (list: Array<{ name: string; reason?: string }>, name: string) => list.find((k) => k.name === name);
  t.deepEqual(byName(keys.body.data, 'legacy'), {
    name: 'legacy',
    source: 'runtime',
    key: null,
    unreadable: true,
    reason: 'invalid settings: tags: at most 32 tags',
  });
  t.like(byName(keys.body.data, 'garbled'), { unreadable: true, reason: 'the record is not JSON' });
  t.like(byName(keys.body.data, 'default'), { source: 'file' });
  const providers = await adminJson(gw, 'GET', '/v1/admin/providers');
  t.like(byName(providers.body.data, 'broken'), { source: 'runtime', unreadable: true, reason: 'the record is not JSON', kind: null });
  t.like(byName(providers.body.data, 'bom'), { source: 'runtime', unreadable: true, kind: 'openai', models: ['bom-1'] });
  t.regex(byName(providers.body.data, 'bom')?.reason ?? '', /api_key: expected a value HTTP can send in a header/);
  for (const s of secrets) t.false(JSON.stringify([keys.body, providers.body]).includes(s), `${s} is not listed`);
  t.is((await chat(gw, KEY)).status, 200, 'the gateway serves meanwhile');

  // the name is taken until the record is deleted; then it can be made again
  for (const [method, path, body] of [
    ['POST', '/v1/admin/keys', { name: 'legacy' }],
    ['PATCH', '/v1/admin/keys/legacy', { budget: 1 }],
    ['POST', '/v1/admin/keys/legacy/rotate', undefined],
    ['POST', '/v1/admin/providers', { name: 'broken', kind: 'mock', api_key: 'x', models: ['m'] }],
  ] as const) {
    const r = await adminJson(gw, method, path, body);
    t.is(r.status, 409, `${method} ${path}`);
    t.is(r.body.error.code, 'record_unreadable');
  }
  t.is((await adminJson(gw, 'DELETE', '/v1/admin/keys/legacy')).status, 204);
  t.is((await adminJson(gw, 'DELETE', '/v1/admin/providers/broken')).status, 204);
  t.is((await adminJson(gw, 'DELETE', '/v1/admin/providers/bom')).status, 204);
  const after = await adminJson(gw, 'GET', '/v1/admin/keys');
  t.is(byName(after.body.data, 'legacy'), undefined);
  t.is((await adminJson(gw, 'POST', '/v1/admin/keys', { name: 'legacy' })).status, 201);
  t.deepEqual(
    (await adminJson(gw, 'GET', '/v1/admin/providers')).body.data.map((p: { name: string }) => p.name),
    ['mock'],
  );
});

test('a provider api_key HTTP cannot send (BOM, lone surrogate, control character, line break) is a 400 naming api_key, and a config error naming the field', async (t) => {
  const dir = await tempDir(t);
  const gw = await started(t, baseConfig(MOCK), dir);
  const secret = 'sk-upstream-0123456789abcdef';
  for (const bad of [`\uFEFF${secret}`, `${secret}\uD800`, `${secret}\u0007`, `${secret}\r\nX-Injected: 1`, ` ${secret}`]) {
    const r = await adminJson(gw, 'POST', '/v1/admin/providers', {
      name: 'up',
      kind: 'openai',
      api_key: bad,
      base_url: 'http://127.0.0.1:9/v1',
      models: ['up-1'],
    });
    t.is(r.status, 400, JSON.stringify(bad));
    t.like(r.body.error, { code: 'invalid_request_body', param: 'api_key' });
    t.regex(r.body.error.message, /api_key: expected a value HTTP can send in a header/);
    t.false(r.body.error.message.includes(secret), 'the key is not quoted');
  }
  t.is((await adminJson(gw, 'GET', '/v1/admin/providers')).body.data.length, 1);
  const good = await adminJson(gw, 'POST', '/v1/admin/providers', { name: 'up', kind: 'mock', api_key: secret, models: ['up-1'] });
  t.is(good.status, 201);

  // the config file: as written, or from the environment; then a reload of the running file
  const section = (key: string) => `[providers.p]\nkind = "openai"\napi_key = "${key}"\nbase_url = "http://127.0.0.1:9/v1"\nmodels = ["p-1"]\n`;
  const bom = await refused(dir, baseConfig(section(`\\uFEFF${secret}`)));
  t.regex(bom, /providers\.p\.api_key: expected a value HTTP can send in a header/);
  t.false(bom.includes(secret));
  // a variable read at load (this worker thread's own environment)
  process.env.GW_TEST_UPSTREAM_KEY = `${secret}\n`;
  t.teardown(() => delete process.env.GW_TEST_UPSTREAM_KEY);
  t.regex(await refused(dir, baseConfig(section('${GW_TEST_UPSTREAM_KEY}'))), /providers\.p\.api_key: expected a value HTTP can send/);
  await writeFile(gw.configPath, baseConfig(`${MOCK}\n${section('${GW_TEST_BAD_KEY:-sk-bad\\u0001key-0123456789}')}`));
  const reload = await adminJson(gw, 'POST', '/v1/admin/reload');
  t.is(reload.status, 400);
  t.is(reload.body.error.code, 'config_invalid');
  t.regex(reload.body.error.message, /providers\.p\.api_key: expected a value HTTP can send in a header/);

  // header values of extension sections: webhooks, the OTLP exporter
  const alerts = await refused(
    dir,
    baseConfig(
      `${MOCK}\n[extensions.alerts]\n[[extensions.alerts.webhooks]]\nname = "ops"\nurl = "http://127.0.0.1:9/hook"\nheaders = { Authorization = "Bearer \\uFEFFtoken" }\n`,
    ),
  );
  t.regex(alerts, /extensions\.alerts\.webhooks\[0\]\.headers\.Authorization: expected a value HTTP can send in a header/);
  const otel = await refused(dir, baseConfig(`${MOCK}\n[extensions.otel]\nendpoint = "http://127.0.0.1:9"\nheaders = { "x-api-key" = "a\\u0000b" }\n`));
  t.regex(otel, /extensions\.otel\.headers\.x-api-key: expected a value HTTP can send in a header/);
});

test('dates are calendar dates on every date parameter and config field', async (t) => {
  const dir = await tempDir(t);
  const gw = await started(
    t,
    baseConfig(`${MOCK}\n[extensions.usage]\n[extensions.request_log]\n[extensions.budget]\ndefault_budget = 1\nunpriced = "allow"\n`),
    dir,
  );
  const get = (path: string) => fetch(`${gw.url}${path}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  for (const [path, param] of [
    ['/v1/usage?from=2026-02-30', 'from'],
    ['/v1/usage?bucket=day&to=2026-02-30T10:00:00Z', 'to'],
    ['/v1/usage?from=2025-02-29', 'from'],
    ['/v1/usage?from=2026-01-01T24:00:00Z', 'from'],
    ['/v1/usage?from=2026-04-31T10:00:00%2B02:00', 'from'],
    ['/v1/usage?metrics=latency&from=2026-02-30', 'from'],
    ['/v1/budget?from=2026-02-30', 'from'],
    ['/v1/requests?since=2026-02-30', 'since'],
  ]) {
    const r = await get(path!);
    const body = (await r.json()) as { error: { param: string; message: string } };
    t.is(r.status, 400, path);
    t.is(body.error.param, param, path);
    t.regex(body.error.message, /must be a real calendar date/, path);
  }
  for (const path of ['/v1/usage?from=2024-02-29', '/v1/usage?from=2026-01-31T23:59:59-01:00', '/v1/requests?since=2026-03-01T00:00:00Z'])
    t.is((await get(path)).status, 200, path);
  const key = await adminJson(gw, 'POST', '/v1/admin/keys', { name: 'k', expires_at: '2026-02-30' });
  t.is(key.status, 400);
  t.regex(key.body.error.message, /expires_at: '2026-02-30' is not a calendar date/);

  // a TOML date the parser would roll over to March 2, and a date string
  t.regex(await loadError(dir, baseConfig(`[keys.a]\nkey = "sk-a-0123456789abcdefgh"\nexpires_at = 2026-02-30\n`)), /keys\.a\.expires_at: not a calendar date/);
  t.regex(
    await loadError(dir, baseConfig(`[keys.a]\nkey = "sk-a-0123456789abcdefgh"\nexpires_at = 2026-02-30T10:00:00Z\n`)),
    /keys\.a\.expires_at: not a calendar date/,
  );
  const price = (date: string) =>
    baseConfig(
      `[pricing."m"]\ninput_per_mtok = 1\noutput_per_mtok = 1\n[[pricing."m".changes]]\nstart_date = ${date}\ninput_per_mtok = 2\noutput_per_mtok = 2\n`,
    );
  t.regex(await loadError(dir, price('2026-02-30')), /pricing\.m\.changes\[0\]\.start_date: not a calendar date/);
  t.regex(await loadError(dir, price('"2026-02-30"')), /pricing\.m\.changes\[0\]\.start_date: expected a real calendar date/);
  await t.notThrowsAsync(async () => {
    await writeFile(join(dir, 'ok.toml'), price('2028-02-29'));
    await loadConfig(join(dir, 'ok.toml'));
  });
});

test("a client's value is quoted in at most 200 characters in an error, wherever it came from", async (t) => {
  const gw = await started(t, baseConfig(`${MOCK}\n[extensions.usage]\n[extensions.request_log]\n`));
  const long = 'x'.repeat(16_000);
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const answers = [
    await fetch(`${gw.url}/v1/usage?group_by=${long}`, { headers: admin }),
    await fetch(`${gw.url}/v1/usage?bucket=${long}`, { headers: admin }),
    await fetch(`${gw.url}/v1/usage?from=${long}`, { headers: admin }),
    await fetch(`${gw.url}/v1/usage?metrics=${long}`, { headers: admin }),
    await fetch(`${gw.url}/v1/requests?status=${long}`, { headers: admin }),
    await fetch(`${gw.url}/v1/requests?limit=${long}`, { headers: admin }),
    await fetch(`${gw.url}/v1/admin/keys/${long.slice(0, 8000)}`, { method: 'DELETE', headers: admin }),
    await fetch(`${gw.url}/v1/admin/providers/${long.slice(0, 8000)}`, { method: 'DELETE', headers: admin }),
  ];
  for (const r of answers) {
    t.true(r.status === 400 || r.status === 404, `${r.url.slice(0, 60)}: ${r.status}`);
    const { message } = ((await r.json()) as { error: { message: string } }).error;
    t.true(message.length < 400, `${r.url.slice(0, 60)}: ${message.length} characters`);
    t.true(message.includes(`${'x'.repeat(200)}…`), message.slice(0, 120));
    t.false(message.includes('x'.repeat(201)));
  }
});

test('tool declarations are capped over every tool group: 25 Gemini tools or Responses namespaces of 20,000 are a 400 in the route’s shape', async (t) => {
  const gw = await started(t, baseConfig(MOCK));
  const declarations = Array.from({ length: 20_000 }, (_, i) => ({ name: `f${i}` }));
  const gemini = await fetch(`${gw.url}/v1beta/models/mock-1:generateContent`, {
    method: 'POST',
    headers: { 'x-goog-api-key': KEY, 'content-type': 'application/json' },
    body: JSON.stringify({
      contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
      tools: Array.from({ length: 25 }, () => ({ functionDeclarations: declarations })),
    }),
  });
  t.is(gemini.status, 400);
  t.like(await gemini.json(), {
    error: {
      code: 400,
      status: 'INVALID_ARGUMENT',
      message:
        'invalid request body: tools: at most 20000 function declarations per request (counted over every tool; a tool without functionDeclarations counts one)',
    },
  });
  const namespaces = Array.from({ length: 25 }, (_, j) => ({
    type: 'namespace',
    name: `n${j}`,
    tools: declarations.map((d) => ({ type: 'function', name: d.name })),
  }));
  const responses = await fetch(`${gw.url}/v1/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'mock-1', input: 'hi', tools: namespaces }),
  });
  t.is(responses.status, 400);
  t.like(((await responses.json()) as { error: object }).error, {
    code: 'invalid_request_body',
    param: 'tools',
    message: "invalid request body: tools: at most 20000 tools per request (a namespace's tools counted one by one)",
  });
  // the cap itself is no tighter: 2 tools of 10,000 pass
  const fits = await fetch(`${gw.url}/v1beta/models/mock-1:generateContent`, {
    method: 'POST',
    headers: { 'x-goog-api-key': KEY, 'content-type': 'application/json' },
    body: JSON.stringify({
      contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
      tools: [{ functionDeclarations: declarations.slice(0, 10_000) }, { functionDeclarations: declarations.slice(10_000) }],
    }),
  });
  t.is(fits.status, 200);
});
