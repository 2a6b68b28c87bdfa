/**
 * The management client, driven as a subprocess (`gw providers|keys|models|usage|budget|
 * cache|reload`) against a running gw: tables, --json, and one clear line with a non-zero
 * exit for every failure.
 */
import { readFile, writeFile } from 'node:fs/promises';
import test from 'ava';
import OpenAI from 'openai';
import { runCli } from '../helpers/cli.ts';
import { ADMIN_TOKEN, baseConfig, KEY, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { fixture, replyJson, startUpstream, type MockUpstream } from '../helpers/upstream.ts';

const UP_KEY = 'sk-upstream-cli-secret-0123456789abcdef';

function commonUpstream(): Promise<MockUpstream> {
  return startUpstream((req, res) => {
    if (req.method === 'GET' && req.url === '/v1/models') return replyJson(res, 200, fixture('openai/spec-examples/models.list.response.json'));
    if (req.method === 'POST' && req.url === '/v1/chat/completions') return replyJson(res, 200, fixture('openai/spec-examples/chat.default.response.json'));
    replyJson(res, 404, { error: { message: `no ${req.url}` } });
  });
}

/** Runs `jobs` two at a time (the machines have few cores; other test files run alongside). */
async function pairs<T>(jobs: Array<() => Promise<T>>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < jobs.length; i += 2) out.push(...(await Promise.all(jobs.slice(i, i + 2).map((j) => j()))));
  return out;
}

const envFor = (gw: { url: string } | { origin: string }, token = ADMIN_TOKEN) => ({ GW_URL: 'url' in gw ? gw.url : gw.origin, GW_ADMIN_TOKEN: token });

async function chatText(gw: TestGateway, model: string, key = KEY): Promise<string | null | undefined> {
  const res = await new OpenAI({ baseURL: gw.baseURL, apiKey: key, maxRetries: 0 }).chat.completions.create({
    model,
    messages: [{ role: 'user', content: 'hi' }],
  });
  return res.choices[0]?.message.content;
}

test('providers create (with and without --models) → list → chat at once → restart → still listed and serving', async (t) => {
  const up = await commonUpstream();
  const gw = await startGateway(
    baseConfig(`[providers.fileup]\nkind = "openai"\napi_key = "sk-file-0123456789abcdef"\nbase_url = "${up.origin}/v1"\nmodels = ["file-model"]\n`),
  );
  let gw2: TestGateway | undefined;
  t.teardown(async () => {
    await gw2?.stop();
    await gw.stop();
    await up.close();
  });

  const [withModels, discovered] = await Promise.all([
    runCli(
      ['providers', 'create', 'local', '--kind', 'vllm', '--api-key', UP_KEY, '--base-url', `${up.origin}/v1`, '--models', 'llama-a, llama-b'],
      envFor(gw),
    ),
    runCli(['providers', 'create', 'disc', '--kind', 'openai', '--api-key', UP_KEY, '--base-url', `${up.origin}/v1`], envFor(gw)),
  ]);
  t.is(withModels.code, 0, withModels.stderr);
  t.is(withModels.stdout, 'created provider local (vllm) serving 2 models: llama-a, llama-b\n');
  t.is(discovered.code, 0, discovered.stderr);
  t.is(discovered.stdout, 'created provider disc (openai) serving 3 models: model-id-0, model-id-1, model-id-2\n');
  t.is(up.received.filter((r) => r.method === 'GET' && r.url === '/v1/models').length, 1);

  const list = await runCli(['providers', 'list'], envFor(gw));
  t.is(list.code, 0, list.stderr);
  const lines = list.stdout.trimEnd().split('\n');
  t.is(lines.length, 4, 'a header and one line per provider');
  t.regex(lines[0]!, /^NAME\s+KIND\s+SOURCE\s+API_KEY\s+BASE_URL\s+CIRCUIT\s+REQ_5M\s+ERR_5M\s+P50_MS\s+P95_MS\s+TTFB_P95\s+MODELS$/);
  t.regex(lines[1]!, /^fileup\s+openai\s+file\s+sk-fil…cdef\s+http:\S+\s+closed\s+0\s+-\s+-\s+-\s+-\s+file-model$/);
  t.regex(lines[2]!, /^disc\s+openai\s+runtime\s+sk-ups…cdef\s+http:\S+\s+closed\s+0\s+-\s+-\s+-\s+-\s+model-id-0,model-id-1,model-id-2$/);
  t.regex(lines[3]!, /^local\s+vllm\s+runtime\s+sk-ups…cdef\s+http:\S+\s+closed\s+0\s+-\s+-\s+-\s+-\s+llama-a,llama-b$/);
  t.is(lines[1]!.indexOf('openai'), lines[3]!.indexOf('vllm'), 'columns are aligned');
  t.false(list.stdout.includes(UP_KEY));

  t.is(await chatText(gw, 'llama-b'), 'Hello! How can I assist you today?');
  t.is(await chatText(gw, 'model-id-2'), 'Hello! How can I assist you today?');
  t.is(up.received.filter((r) => r.url === '/v1/chat/completions').at(-1)!.headers.authorization, `Bearer ${UP_KEY}`);

  await gw.stop({ keepDir: true });
  gw2 = await startGateway(await readFile(gw.configPath, 'utf8'), { dir: gw.dir });
  const json = await runCli(['providers', 'list', '--json'], envFor(gw2));
  t.is(json.code, 0, json.stderr);
  t.deepEqual(
    JSON.parse(json.stdout).map((p: any) => [p.name, p.source, p.models.length]),
    [
      ['fileup', 'file', 1],
      ['disc', 'runtime', 3],
      ['local', 'runtime', 2],
    ],
  );
  t.is(await chatText(gw2, 'llama-a'), 'Hello! How can I assist you today?');

  const del = await runCli(['providers', 'delete', 'local'], envFor(gw2));
  t.is(del.code, 0, del.stderr);
  t.is(del.stdout, 'deleted provider local\n');
  const delFile = await runCli(['providers', 'delete', 'fileup'], envFor(gw2));
  t.is(delFile.code, 1);
  t.regex(
    delFile.stderr,
    /^gw: provider 'fileup' is defined in the config file .*gateway\.toml; remove \[providers\.fileup\] there, then reload \(gw reload\) \(HTTP 409\)\n$/,
  );
  t.is(delFile.stdout, '');
});

test('keys create prints the key once → it works → keys list masks it → revoke → 401', async (t) => {
  const up = await commonUpstream();
  const gw = await startGateway(baseConfig(`[providers.up]\nkind = "openai"\napi_key = "sk-up"\nbase_url = "${up.origin}/v1"\nmodels = ["m1"]\n`));
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });

  const created = await runCli(['keys', 'create', 'ci'], envFor(gw));
  t.is(created.code, 0, created.stderr);
  const key = created.stdout.trim();
  t.regex(created.stdout, /^sk-[A-Za-z0-9_-]{32,}\n$/);
  t.regex(created.stderr, /shown|cannot show it again/);
  t.is(await chatText(gw, 'm1', key), 'Hello! How can I assist you today?');

  const list = await runCli(['keys', 'list'], envFor(gw));
  t.is(list.code, 0, list.stderr);
  const lines = list.stdout.trimEnd().split('\n');
  t.deepEqual(
    lines.map((l) => l.split(/\s+/).slice(0, 2)),
    [
      ['NAME', 'SOURCE'],
      ['default', 'file'],
      ['second', 'file'],
      ['ci', 'runtime'],
    ],
  );
  t.false(list.stdout.includes(key));
  t.false(list.stdout.includes(KEY));

  const revoked = await runCli(['keys', 'revoke', 'ci'], envFor(gw));
  t.is(revoked.code, 0, revoked.stderr);
  t.is(revoked.stdout, 'revoked key ci\n');
  const refused = await fetch(`${gw.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm1', messages: [{ role: 'user', content: 'hi' }] }),
  });
  t.is(refused.status, 401);

  const again = await runCli(['keys', 'revoke', 'ci'], envFor(gw));
  t.is(again.code, 1);
  t.is(again.stderr, "gw: no key 'ci' (HTTP 404)\n");
});

test('failures print one line and exit non-zero: bad token, unreachable server, server error, missing token, disabled extension', async (t) => {
  const gw = await startGateway(baseConfig());
  const broken = await startUpstream((_req, res) =>
    replyJson(res, 500, { error: { message: 'internal error', type: 'server_error', code: 'internal_error', param: null } }),
  );
  const closed = await startUpstream(() => undefined);
  await closed.close();
  t.teardown(async () => {
    await gw.stop();
    await broken.close();
  });

  const [badToken, gatewayKey, unreachable, serverError, noToken, usage, budget, cache] = await pairs([
    () => runCli(['providers', 'list'], envFor(gw, 'sk-wrong-admin-token-0123456789')),
    () => runCli(['keys', 'list'], envFor(gw, KEY)),
    () => runCli(['keys', 'list'], envFor(closed)),
    () => runCli(['models'], envFor(broken)),
    () => runCli(['keys', 'list'], { GW_URL: gw.url, GW_ADMIN_TOKEN: '' }),
    () => runCli(['usage'], envFor(gw)),
    () => runCli(['budget'], envFor(gw)),
    () => runCli(['cache', 'clear'], envFor(gw)),
  ]);
  t.deepEqual([badToken.code, badToken.stdout, badToken.stderr], [1, '', 'gw: the admin token was refused (HTTP 401): invalid admin token\n']);
  t.deepEqual(
    [gatewayKey.code, gatewayKey.stderr],
    [1, 'gw: GW_ADMIN_TOKEN is not the admin token (HTTP 403): a gateway key cannot call admin routes; use the admin token\n'],
  );
  t.deepEqual([unreachable.code, unreachable.stderr], [1, `gw: cannot reach gw at ${closed.origin}: ECONNREFUSED\n`]);
  t.deepEqual([serverError.code, serverError.stderr], [1, 'gw: server error (HTTP 500): internal error\n']);
  t.is(noToken.code, 1);
  t.regex(noToken.stderr, /^gw: GW_ADMIN_TOKEN is not set[^\n]*\n$/);
  t.deepEqual([usage.code, usage.stderr], [1, 'gw: the usage extension is not enabled: add [extensions.usage] to the gateway config (HTTP 404)\n']);
  t.deepEqual([budget.code, budget.stderr], [1, 'gw: the budget extension is not enabled: add [extensions.budget] to the gateway config (HTTP 404)\n']);
  t.deepEqual([cache.code, cache.stderr], [1, 'gw: the cache extension is not enabled: add [extensions.cache] to the gateway config (HTTP 404)\n']);
});

test('gw models and gw reload with a good and a bad file', async (t) => {
  const up = await commonUpstream();
  const provider = `[providers.up]\nkind = "openai"\napi_key = "sk-up"\nbase_url = "${up.origin}/v1"\nmodels = ["m1", "m2"]\n`;
  const gw = await startGateway(baseConfig(provider));
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });

  await writeFile(gw.configPath, baseConfig(`${provider}\n[aliases]\nfast = "m2"\n\n[pricing."m1"]\ninput_per_mtok = 1\noutput_per_mtok = 2\n`));
  const ok = await runCli(['reload'], envFor(gw));
  t.is(ok.code, 0, ok.stderr);
  t.regex(ok.stdout, /^reloaded \S+gateway\.toml: 1 provider, 2 models, 2 keys\n$/);
  const models = await runCli(['models'], envFor(gw));
  t.is(models.code, 0, models.stderr);
  t.deepEqual(
    models.stdout
      .trimEnd()
      .split('\n')
      .map((l) => l.split(/\s+/)),
    [
      ['MODEL', 'ALIAS_FOR', 'PROVIDERS', 'USD/MTOK(IN/OUT/CACHED/WRITE)', 'PRICE_FROM'],
      ['m1', '-', 'up', '1/2/1/1', '[pricing."m1"]'],
      ['m2', '-', 'up', 'unpriced', '-'],
      ['fast', 'm2', 'up', 'unpriced', '-'],
    ],
  );

  await writeFile(gw.configPath, baseConfig(`${provider}\n[aliases]\nfast = 3\n`));
  const bad = await runCli(['reload'], envFor(gw));
  t.is(bad.code, 1);
  t.regex(bad.stderr, /^gw: reload refused, the running config is kept: \S+gateway\.toml: aliases\.fast: [^\n]+ \(HTTP 400\)\n$/);
  t.is(await chatText(gw, 'fast'), 'Hello! How can I assist you today?');
  t.is(up.received.at(-1)!.json.model, 'm2');
});

test('every management command has --help', async (t) => {
  const commands = [
    ['providers'],
    ['providers', 'list'],
    ['providers', 'create'],
    ['providers', 'delete'],
    ['keys'],
    ['keys', 'list'],
    ['keys', 'create'],
    ['keys', 'update'],
    ['keys', 'rotate'],
    ['keys', 'revoke'],
    ['models'],
    ['usage'],
    ['budget'],
    ['cache'],
    ['cache', 'clear'],
    ['reload'],
  ];
  const results = await pairs(commands.map((c) => () => runCli([...c, '--help'], { GW_ADMIN_TOKEN: '' })));
  results.forEach((r, i) => {
    t.is(r.code, 0, commands[i]!.join(' '));
    t.true(r.stdout.startsWith(`Usage: gw ${commands[i]!.join(' ')}`), r.stdout);
  });
  const missing = await runCli(['providers', 'create', 'x'], {});
  t.not(missing.code, 0);
  t.regex(missing.stderr, /--api-key/);
});
