/**
 * Virtual keys end to end on one instance (docs/design.md "Virtual keys"), driven with the
 * official openai client: model access (403 before any upstream call or reservation, model
 * lists filtered), expiry (401), a daily budget across a day boundary on an injected
 * clock, per-key rate limits beside the default, max_parallel_requests under 20 parallel
 * streams, and PATCH / rotate taking effect on the next request.
 */
import test, { type ExecutionContext } from 'ava';
import OpenAI from 'openai';
import { baseConfig, KEY, KEY2, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { replySse, startUpstream, toSse, type MockUpstream } from '../helpers/upstream.ts';
import { admin, adminJson, client, HI, json, openaiUpstream, post } from '../helpers/ext-helpers.ts';

const MODELS = ['gpt-4o', 'gpt-4o-mini', 'claude-sonnet-4-5', 'text-embedding-3-small'];

function provider(up: MockUpstream): string {
  return `[providers.up]\napi_key = "sk-upstream-secret-value"\nbase_url = "${up.origin}/v1"\nmax_retries = 0\nmodels = ${JSON.stringify(MODELS)}\n`;
}

/** gw with `[keys.default]` (KEY) and `[keys.second]` (KEY2) whose settings are `defaultSettings`, plus `extra`. */
async function gatewayWith(
  t: ExecutionContext,
  up: MockUpstream,
  defaultSettings: string,
  extra = '',
  opts: Parameters<typeof startGateway>[1] = {},
): Promise<TestGateway> {
  const toml = baseConfig(`${provider(up)}\n${extra}`).replace(`key = "${KEY}"\n`, `key = "${KEY}"\n${defaultSettings}\n`);
  const gw = await startGateway(toml, opts);
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  return gw;
}

const chatCalls = (up: MockUpstream) => up.received.filter((r) => r.url === '/v1/chat/completions').length;

test('models: allowed after alias resolution; a model outside the patterns is 403 naming it, before any upstream call, rate-limit window or reservation', async (t) => {
  const up = await openaiUpstream();
  const gw = await gatewayWith(
    t,
    up,
    'models = ["gpt-4o*"]\nrequests_per_minute = 2',
    `
[aliases]
fast = "gpt-4o-mini"
smart = "claude-sonnet-4-5"

[fallbacks]
"gpt-4o" = ["claude-sonnet-4-5"]

[pricing."gpt-4o"]
input_per_mtok = 1
output_per_mtok = 1
[pricing."gpt-4o-mini"]
input_per_mtok = 1
output_per_mtok = 1
[pricing."claude-sonnet-4-5"]
input_per_mtok = 1
output_per_mtok = 1

[extensions.rate_limit]
requests_per_minute = 1000
[extensions.budget]
default_budget = 100
`,
  );
  const c = client(gw);
  for (const model of ['claude-sonnet-4-5', 'smart', 'gpt-4', 'text-embedding-3-small']) {
    const err = (await t.throwsAsync(c.chat.completions.create({ model, messages: HI }), { instanceOf: OpenAI.PermissionDeniedError }))!;
    t.is(err.status, 403);
    t.is(err.code, 'model_not_allowed');
    t.is((err.error as any).param, 'model');
    t.true(err.message.includes(`'${model}'`), err.message);
    t.regex(err.message, /gpt-4o\*/);
  }
  t.regex((await t.throwsAsync(c.chat.completions.create({ model: 'smart', messages: HI })))!.message, /alias of 'claude-sonnet-4-5'/);
  await t.throwsAsync(c.embeddings.create({ model: 'text-embedding-3-small', input: 'x' }), { instanceOf: OpenAI.PermissionDeniedError });
  // the Messages format refuses in its own shape
  const m = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': KEY, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 10, messages: HI }),
  });
  t.is(m.status, 403);
  t.like(await json(m), { type: 'error', error: { type: 'permission_error' } });
  t.is(up.received.length, 0);
  // nothing was counted or reserved for the refusals: both requests of the key's window are still there
  const b = (await admin(gw, 'GET', '/v1/budget')).body.find((e: any) => e.key === 'default');
  t.like(b, { spent_usd: 0, reserved_usd: 0 });
  t.is((await c.chat.completions.create({ model: 'gpt-4o', messages: HI })).object, 'chat.completion');
  t.is((await c.chat.completions.create({ model: 'fast', messages: HI })).object, 'chat.completion'); // alias of an allowed model
  t.is(up.received.at(-1)!.json.model, 'gpt-4o-mini');
  await t.throwsAsync(c.chat.completions.create({ model: 'gpt-4o', messages: HI }), { instanceOf: OpenAI.RateLimitError }); // its own rpm of 2
  // a key without models calls anything
  t.is((await client(gw, KEY2).chat.completions.create({ model: 'claude-sonnet-4-5', messages: HI })).object, 'chat.completion');
  t.is(chatCalls(up), 3);
});

test('models: a fallback the key may not call is skipped; a 404 suggests only models the key may call', async (t) => {
  const up = await startUpstream((req, res) => {
    if (req.json?.model === 'gpt-4o') {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"down"}}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: 'x',
        object: 'chat.completion',
        created: 1,
        model: req.json.model,
        choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
      }),
    );
  });
  const gw = await gatewayWith(t, up, 'models = ["gpt-4o*", "*-4-5x"]', '[fallbacks]\n"gpt-4o" = ["claude-sonnet-4-5", "gpt-4o-mini"]\n');
  const r = await client(gw).chat.completions.create({ model: 'gpt-4o', messages: HI });
  t.is(r.model, 'gpt-4o-mini');
  t.deepEqual(
    up.received.map((x) => x.json.model),
    ['gpt-4o', 'gpt-4o-mini'],
  ); // claude-sonnet-4-5 never tried
  const miss = (await t.throwsAsync(client(gw).chat.completions.create({ model: 'gpt-4o-mini-x', messages: HI }), { instanceOf: OpenAI.NotFoundError }))!;
  t.regex(miss.message, /did you mean 'gpt-4o', 'gpt-4o-mini'\?$/);
  // allowed by a pattern, served by nobody, and close to a model the key may not call: 404 without a hint of it
  const near = (await t.throwsAsync(client(gw).chat.completions.create({ model: 'claude-sonnet-4-5x', messages: HI }), { instanceOf: OpenAI.NotFoundError }))!;
  t.notRegex(near.message, /did you mean/);
  t.regex(
    (await t.throwsAsync(client(gw, KEY2).chat.completions.create({ model: 'claude-sonnet-4-5x', messages: HI })))!.message,
    /did you mean 'claude-sonnet-4-5'/,
  );
});

test('/v1/models lists only what the key may call (aliases of allowed models included); GET /v1/models/{id} is 404 for the others, in both formats', async (t) => {
  const up = await openaiUpstream();
  const gw = await gatewayWith(t, up, 'models = ["gpt-4o*"]', '[aliases]\nfast = "gpt-4o-mini"\nsmart = "claude-sonnet-4-5"\n');
  const c = client(gw);
  const ids = [];
  for await (const m of c.models.list()) ids.push(m.id);
  t.deepEqual(ids, ['gpt-4o', 'gpt-4o-mini', 'fast']);
  t.is((await c.models.retrieve('gpt-4o-mini')).id, 'gpt-4o-mini');
  t.is((await c.models.retrieve('fast')).id, 'fast');
  const err = (await t.throwsAsync(c.models.retrieve('claude-sonnet-4-5'), { instanceOf: OpenAI.NotFoundError }))!;
  t.is(err.code, 'model_not_found');
  await t.throwsAsync(c.models.retrieve('smart'), { instanceOf: OpenAI.NotFoundError });
  // the other key has no patterns: everything
  const all = [];
  for await (const m of client(gw, KEY2).models.list()) all.push(m.id);
  t.deepEqual(all, [...MODELS, 'fast', 'smart']);
  // Anthropic clients list models through gw too
  const anth = await fetch(`${gw.url}/v1/models`, { headers: { 'x-api-key': KEY, 'anthropic-version': '2023-06-01' } });
  t.deepEqual(
    ((await json(anth)).data as Array<{ id: string }>).map((m) => m.id),
    ['gpt-4o', 'gpt-4o-mini', 'fast'],
  );
  t.is((await fetch(`${gw.url}/v1/models/claude-sonnet-4-5`, { headers: { 'x-api-key': KEY, 'anthropic-version': '2023-06-01' } })).status, 404);
  // the admin view lists every model
  t.is((await admin(gw, 'GET', '/v1/admin/models')).body.data.length, MODELS.length + 2);
});

test('expiry: 401 key_expired once the clock passes expires_at (file and runtime keys); listed as expired', async (t) => {
  let now = Date.parse('2026-12-31T23:59:59.000Z');
  const up = await openaiUpstream();
  const gw = await gatewayWith(t, up, 'expires_at = 2027-01-01', '', { clock: () => now });
  const c = client(gw);
  t.is((await c.chat.completions.create({ model: 'gpt-4o', messages: HI })).object, 'chat.completion');
  const created = await adminJson(gw, 'POST', '/v1/admin/keys', { name: 'temp', expires_at: '2027-01-01T00:00:30+00:00' });
  t.is(created.status, 201);
  t.is(created.body.expires_at, '2027-01-01T00:00:30Z');
  const temp = client(gw, created.body.key);
  t.is((await temp.chat.completions.create({ model: 'gpt-4o', messages: HI })).object, 'chat.completion');
  now = Date.parse('2027-01-01T00:00:00.000Z');
  const err = (await t.throwsAsync(c.chat.completions.create({ model: 'gpt-4o', messages: HI }), { instanceOf: OpenAI.AuthenticationError }))!;
  t.is(err.code, 'key_expired');
  t.regex(err.message, /'default' expired at 2027-01-01T00:00:00Z/);
  t.is((await temp.chat.completions.create({ model: 'gpt-4o', messages: HI })).object, 'chat.completion');
  now += 30_000;
  await t.throwsAsync(temp.chat.completions.create({ model: 'gpt-4o', messages: HI }), { instanceOf: OpenAI.AuthenticationError, code: 'key_expired' });
  await t.throwsAsync(temp.models.list(), { instanceOf: OpenAI.AuthenticationError });
  const list = (await admin(gw, 'GET', '/v1/admin/keys')).body.data as Array<{ name: string; expired: boolean }>;
  t.deepEqual(
    list.map((k) => [k.name, k.expired]),
    [
      ['default', true],
      ['second', false],
      ['temp', true],
    ],
  );
  // PATCH lifts the expiry of the runtime key: it works again at once
  t.is((await adminJson(gw, 'PATCH', '/v1/admin/keys/temp', { expires_at: null })).status, 200);
  t.is((await temp.chat.completions.create({ model: 'gpt-4o', messages: HI })).object, 'chat.completion');
  t.is(chatCalls(up), 4);
});

const PRICING = '[pricing."gpt-4o"]\ninput_per_mtok = 10\noutput_per_mtok = 10000\n';
/** $0.01 per output token: max_tokens 100 → $1.0001 a request (usage = 10 prompt + max_tokens). */
const usageOf = (req: any) => ({ prompt_tokens: 10, completion_tokens: req?.max_tokens ?? 50 });
const PER_REQUEST = 1.0001;

test('a daily budget refuses, then admits again after the day boundary; a request admitted just before it is charged to its own day', async (t) => {
  let now = Date.parse('2026-05-14T10:00:00Z');
  const up = await openaiUpstream({ usageOf });
  // the store prunes spend buckets by the machine's clock, not gw's: keep May's past the real date's 90 days
  const gw = await gatewayWith(
    t,
    up,
    'budget = 1.5\nbudget_period = "daily"',
    `${PRICING}\n[extensions.budget]\ndefault_budget = 1000\nretention_days = 3650\n`,
    {
      clock: () => now,
    },
  );
  const c = client(gw);
  const ask = () => c.chat.completions.create({ model: 'gpt-4o', messages: HI, max_tokens: 100 });
  await ask();
  await ask(); // spent 1.0001 < 1.5 at admission
  const refused = (await t.throwsAsync(ask(), { instanceOf: OpenAI.RateLimitError }))!;
  t.is(refused.code, 'budget_exceeded');
  t.regex(refused.message, /spent \$2\.0002 of \$1\.5 this day; resets at 2026-05-15T00:00:00Z/);
  let b = (await admin(gw, 'GET', '/v1/budget')).body.find((e: any) => e.key === 'default');
  t.deepEqual(b, {
    key: 'default',
    spent_usd: 2.0002,
    budget_usd: 1.5,
    remaining_usd: -0.5002,
    reserved_usd: 0,
    period: 'daily',
    period_start: '2026-05-14T00:00:00Z',
    resets_at: '2026-05-15T00:00:00Z',
  });
  // the other key: lifetime, the extension's default budget
  t.like(
    (await admin(gw, 'GET', '/v1/budget')).body.find((e: any) => e.key === 'second'),
    { period: 'lifetime', budget_usd: 1000 },
  );
  t.false('resets_at' in (await admin(gw, 'GET', '/v1/budget')).body.find((e: any) => e.key === 'second'));

  now = Date.parse('2026-05-15T00:00:00Z'); // midnight UTC: a new day, a new counter
  await ask();
  b = (await admin(gw, 'GET', '/v1/budget')).body.find((e: any) => e.key === 'default');
  t.like(b, { spent_usd: PER_REQUEST, period_start: '2026-05-15T00:00:00Z', resets_at: '2026-05-16T00:00:00Z' });

  // admitted at 23:59:59.999, answered after midnight: charged to the 15th
  now = Date.parse('2026-05-15T23:59:59.999Z');
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  up.handle(async (req, res) => {
    await gate;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: 'x',
        object: 'chat.completion',
        created: 1,
        model: 'gpt-4o',
        choices: [{ index: 0, message: { role: 'assistant', content: 'late' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 10, completion_tokens: req.json.max_tokens, total_tokens: 10 + req.json.max_tokens },
      }),
    );
  });
  const late = ask();
  while (chatCalls(up) < 4) await new Promise((r) => setTimeout(r, 5));
  now = Date.parse('2026-05-16T00:00:00Z');
  // the 16th starts with nothing spent; the request in flight holds its reservation against
  // the period in force until it is charged, to the 15th
  const inFlight = (await admin(gw, 'GET', '/v1/budget')).body.find((e: any) => e.key === 'default');
  t.like(inFlight, { spent_usd: 0, period_start: '2026-05-16T00:00:00Z' });
  t.true(inFlight.reserved_usd >= PER_REQUEST);
  release();
  t.is((await late).choices[0]!.message.content, 'late');
  const history = (await admin(gw, 'GET', '/v1/budget?history=true')).body.filter((e: any) => e.key === 'default');
  t.deepEqual(history, [
    { key: 'default', period: 'lifetime', spent_usd: 4.0004 },
    { key: 'default', period: 'daily', period_start: '2026-05-14T00:00:00Z', resets_at: '2026-05-15T00:00:00Z', spent_usd: 2.0002 },
    { key: 'default', period: 'daily', period_start: '2026-05-15T00:00:00Z', resets_at: '2026-05-16T00:00:00Z', spent_usd: 2.0002 },
  ]);
  t.like(
    (await admin(gw, 'GET', '/v1/budget')).body.find((e: any) => e.key === 'default'),
    { spent_usd: 0, reserved_usd: 0 },
  );
  t.is((await admin(gw, 'GET', '/v1/budget?history=maybe')).status, 400);
});

test('per-key requests_per_minute beside the default: each key gets exactly its own limit under parallel load', async (t) => {
  const up = await openaiUpstream({ delayMs: 20 });
  const gw = await gatewayWith(t, up, 'requests_per_minute = 3', '[extensions.rate_limit]\nrequests_per_minute = 7\n');
  const created = await adminJson(gw, 'POST', '/v1/admin/keys', { name: 'fast', requests_per_minute: 12 });
  const fire = (key: string, n: number) =>
    Promise.all(Array.from({ length: n }, () => post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI }, key).then((r) => r.status)));
  const [own, dflt, rt] = await Promise.all([fire(KEY, 15), fire(KEY2, 15), fire(created.body.key, 30)]);
  t.is(own.filter((s) => s === 200).length, 3);
  t.is(dflt.filter((s) => s === 200).length, 7);
  t.is(rt.filter((s) => s === 200).length, 12);
  t.is([...own, ...dflt, ...rt].filter((s) => s === 429).length, 12 + 8 + 18);
  t.is(up.received.length, 22);
  // raised at runtime: the window keeps what it holds, the new limit applies at once
  t.is((await adminJson(gw, 'PATCH', '/v1/admin/keys/fast', { requests_per_minute: 14 })).status, 200);
  const more = await fire(created.body.key, 5);
  t.is(more.filter((s) => s === 200).length, 2);
});

test('per-key tokens_per_minute without a default: only the key that has one is limited', async (t) => {
  const up = await openaiUpstream({ usageOf: () => ({ prompt_tokens: 30, completion_tokens: 20 }) });
  const gw = await gatewayWith(t, up, 'tokens_per_minute = 100', '[extensions.rate_limit]\nrequests_per_minute = 1000\n');
  const c = client(gw);
  await c.chat.completions.create({ model: 'gpt-4o', messages: HI });
  const s = await c.chat.completions.create({ model: 'gpt-4o', messages: HI, stream: true });
  for await (const _ of s) void _;
  const err = (await t.throwsAsync(c.chat.completions.create({ model: 'gpt-4o', messages: HI }), { instanceOf: OpenAI.RateLimitError }))!;
  t.regex(err.message, /100 tokens per minute/);
  for (let i = 0; i < 5; i++) await client(gw, KEY2).chat.completions.create({ model: 'gpt-4o', messages: HI });
  t.is(up.received.length, 7);
});

/** An upstream whose streams wait at `gate` before their first chunk. */
function gatedStreams(): { up: Promise<MockUpstream>; open(): void } {
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  const chunks = [0, 1, 2].map((i) => ({
    id: 'c',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'gpt-4o',
    choices: [{ index: 0, delta: { content: `w${i}` }, finish_reason: i === 2 ? 'stop' : null }],
  }));
  const up = startUpstream(async (_req, res) => {
    await gate;
    await replySse(res, toSse(chunks));
  });
  return { up, open: () => open() };
}

test('max_parallel_requests: 20 parallel streams, exactly the cap admitted, the rest 429 before the upstream; slots come back at the end of each stream', async (t) => {
  const g = gatedStreams();
  const up = await g.up;
  const gw = await gatewayWith(t, up, 'max_parallel_requests = 3', '[extensions.usage]\n');
  const c = client(gw);
  const results = Array.from({ length: 20 }, () =>
    c.chat.completions.create({ model: 'gpt-4o', messages: HI, stream: true }).then(
      async (s) => {
        let text = '';
        for await (const ch of s) text += ch.choices[0]?.delta?.content ?? '';
        return { ok: true as const, text };
      },
      (err: InstanceType<typeof OpenAI.APIError>) => ({ ok: false as const, status: err.status, code: err.code, retry: err.headers?.get('retry-after') }),
    ),
  );
  // 17 refusals come back while 3 streams wait for their upstream
  const settled: Array<Awaited<(typeof results)[number]>> = [];
  for (const r of results) void r.then((v) => settled.push(v));
  while (settled.length < 17) await new Promise((r) => setTimeout(r, 5));
  t.is(up.received.length, 3);
  t.true(settled.every((r) => !r.ok && r.status === 429 && r.code === 'parallel_limit_exceeded' && r.retry === '1'));
  // another key is not capped (it waits for the upstream like the three)
  const other = post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI, stream: true }, KEY2);
  while (up.received.length < 4) await new Promise((r) => setTimeout(r, 5));
  g.open();
  t.is((await other).status, 200);
  const all = await Promise.all(results);
  t.deepEqual(
    all.filter((r) => r.ok).map((r) => (r as { text: string }).text),
    ['w0w1w2', 'w0w1w2', 'w0w1w2'],
  );
  // one at a time never waits: a slot is free before the client sees its stream end
  for (let i = 0; i < 10; i++) {
    const s = await c.chat.completions.create({ model: 'gpt-4o', messages: HI, stream: true });
    for await (const _ of s) void _;
    const j = await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI });
    t.not(j.status, 429);
  }
  // a stream the client abandons gives its slot back too
  const ac = new AbortController();
  up.handle(async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(
      `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices: [{ index: 0, delta: { content: 'x' }, finish_reason: null }] })}\n\n`,
    );
  });
  const held = await Promise.all(
    [0, 1, 2].map(() =>
      fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        signal: ac.signal,
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o', messages: HI, stream: true }),
      }),
    ),
  );
  t.deepEqual(
    held.map((r) => r.status),
    [200, 200, 200],
  );
  t.is((await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI })).status, 429);
  ac.abort();
  let status = 429;
  for (let i = 0; i < 100 && status === 429; i++) {
    await new Promise((r) => setTimeout(r, 20));
    up.handle(
      (_req, res) =>
        void replySse(
          res,
          toSse([{ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }]),
        ),
    );
    status = (await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI, stream: true })).status;
  }
  t.is(status, 200);
});

test('PATCH changes settings without rotating (the same secret, new limits at once); rotate gives a new secret, the old one stops at once or after its grace', async (t) => {
  let now = Date.parse('2026-05-14T10:00:00Z');
  const up = await openaiUpstream();
  const gw = await gatewayWith(t, up, '', '', { clock: () => now });
  const created = await adminJson(gw, 'POST', '/v1/admin/keys', { name: 'app', models: ['gpt-4o'], tags: { team: 'search' } });
  t.is(created.status, 201);
  t.like(created.body, { name: 'app', source: 'runtime', models: ['gpt-4o'], tags: { team: 'search' }, budget: null, expired: false });
  const secret: string = created.body.key;
  t.is((await admin(gw, 'GET', '/v1/admin/keys')).body.data.find((k: any) => k.name === 'app').key, `${secret.slice(0, 8)}…`);
  const c = () => client(gw, secret);
  await t.throwsAsync(c().chat.completions.create({ model: 'gpt-4o-mini', messages: HI }), { instanceOf: OpenAI.PermissionDeniedError });
  const patched = await adminJson(gw, 'PATCH', '/v1/admin/keys/app', { models: ['gpt-4o*'], tags: { env: 'prod' }, max_parallel_requests: 2 });
  t.is(patched.status, 200);
  t.like(patched.body, { name: 'app', models: ['gpt-4o*'], tags: { team: 'search', env: 'prod' }, max_parallel_requests: 2 });
  t.false(JSON.stringify(patched.body).includes(secret));
  t.is((await c().chat.completions.create({ model: 'gpt-4o-mini', messages: HI })).object, 'chat.completion');
  // bad patches name the field; file keys and unknown keys are refused
  const bad = await adminJson(gw, 'PATCH', '/v1/admin/keys/app', { budget_period: 'yearly' });
  t.is(bad.status, 400);
  t.is(bad.body.error.param, 'budget_period');
  t.is((await adminJson(gw, 'PATCH', '/v1/admin/keys/app', { key: 'sk-chosen-0123456789abcdef' })).status, 400);
  const fileKey = await adminJson(gw, 'PATCH', '/v1/admin/keys/default', { budget: 1 });
  t.is(fileKey.status, 409);
  t.regex(fileKey.body.error.message, /defined in the config file .*gateway\.toml.*edit \[keys\.default\] there/);
  t.is((await adminJson(gw, 'POST', '/v1/admin/keys/default/rotate')).status, 409);
  t.is((await adminJson(gw, 'PATCH', '/v1/admin/keys/nope', { budget: 1 })).status, 404);
  t.is((await adminJson(gw, 'POST', '/v1/admin/keys/nope/rotate')).status, 404);

  // rotate with no body: the old secret stops at once
  const r1 = await adminJson(gw, 'POST', '/v1/admin/keys/app/rotate');
  t.is(r1.status, 200);
  t.like(r1.body, { name: 'app', source: 'runtime', previous_key_valid_until: null });
  t.regex(r1.body.key, /^sk-[A-Za-z0-9_-]{32,}$/);
  // the listing follows the new secret's prefix
  t.is((await admin(gw, 'GET', '/v1/admin/keys')).body.data.find((k: any) => k.name === 'app').key, `${r1.body.key.slice(0, 8)}…`);
  await t.throwsAsync(c().chat.completions.create({ model: 'gpt-4o', messages: HI }), { instanceOf: OpenAI.AuthenticationError, code: 'invalid_api_key' });
  const second: string = r1.body.key;
  t.is((await client(gw, second).chat.completions.create({ model: 'gpt-4o-mini', messages: HI })).object, 'chat.completion'); // settings kept
  // rotate with a grace period: both work until it ends
  const r2 = await adminJson(gw, 'POST', '/v1/admin/keys/app/rotate', { grace_seconds: 300 });
  t.like(r2.body, { previous_key_valid_until: '2026-05-14T10:05:00Z' });
  t.is((await client(gw, second).chat.completions.create({ model: 'gpt-4o', messages: HI })).object, 'chat.completion');
  t.is((await client(gw, r2.body.key).chat.completions.create({ model: 'gpt-4o', messages: HI })).object, 'chat.completion');
  t.like(
    (await admin(gw, 'GET', '/v1/admin/keys')).body.data.find((k: any) => k.name === 'app'),
    { previous_key_valid_until: '2026-05-14T10:05:00Z' },
  );
  now += 300_000;
  await t.throwsAsync(client(gw, second).chat.completions.create({ model: 'gpt-4o', messages: HI }), { instanceOf: OpenAI.AuthenticationError });
  t.is((await client(gw, r2.body.key).chat.completions.create({ model: 'gpt-4o', messages: HI })).object, 'chat.completion');
  t.is((await adminJson(gw, 'POST', '/v1/admin/keys/app/rotate', { grace_seconds: -1 })).status, 400);
  // usage and limits stay with the name, whatever the secret
  t.deepEqual(
    (await admin(gw, 'GET', '/v1/admin/keys')).body.data.map((k: any) => k.name),
    ['default', 'second', 'app'],
  );
});

test('settings no enabled extension enforces are accepted with a warning (startup and admin answers)', async (t) => {
  const up = await openaiUpstream();
  const gw = await gatewayWith(t, up, 'budget = 5');
  const warn = gw.logs.map((l) => JSON.parse(l)).find((l) => /sets budget/.test(l.msg));
  t.regex(warn?.msg ?? '', /key 'default' sets budget, but no enabled extension enforces it: add \[extensions\.budget\]/);
  const created = await adminJson(gw, 'POST', '/v1/admin/keys', { name: 'x', requests_per_minute: 5, models: ['gpt-4o'] });
  t.is(created.status, 201);
  t.deepEqual(created.body.warnings, [
    "key 'x' sets requests_per_minute, but no enabled extension enforces it: add [extensions.rate_limit] to the config (then restart)",
  ]);
  const invalid = await adminJson(gw, 'POST', '/v1/admin/keys', { name: 'y', expires_at: 'soon' });
  t.is(invalid.status, 400);
  t.is(invalid.body.error.param, 'expires_at');
  t.is((await adminJson(gw, 'POST', '/v1/admin/keys', { name: 'z', models: [] })).status, 400);
});

test("extensions see a key's settings and tags through the gateway view and rc.key, never its secret", async (t) => {
  const up = await openaiUpstream();
  const gw = await gatewayWith(t, up, 'tags = { team = "search", env = "prod" }\nrequests_per_minute = 9');
  const info = gw.running.gateway.info;
  t.deepEqual(info.keyTags('default'), { team: 'search', env: 'prod' });
  t.is(info.keyTags('second'), undefined);
  t.is(info.key('default')?.requestsPerMinute, 9);
  t.is(info.key('nope'), undefined);
  const created = await adminJson(gw, 'POST', '/v1/admin/keys', { name: 'rt', tags: { team: 'ads' } });
  t.deepEqual(info.keyTags('rt'), { team: 'ads' });
  const seen: unknown[] = [];
  gw.running.gateway.hooks.onResponse.tap('probe', (rc) => void seen.push(rc.key));
  await client(gw, created.body.key).chat.completions.create({ model: 'gpt-4o', messages: HI });
  const text = JSON.stringify([seen, info.key('default'), info.key('rt')]);
  t.regex(text, /"team":"ads"/);
  for (const secret of [KEY, KEY2, created.body.key]) t.false(text.includes(secret));
  t.false(/[0-9a-f]{64}/.test(text));
});

test("a file key's settings change with the file: reload applies them to the next request", async (t) => {
  const up = await openaiUpstream();
  const gw = await gatewayWith(t, up, 'models = ["gpt-4o"]');
  const { readFile, writeFile } = await import('node:fs/promises');
  await t.throwsAsync(client(gw).chat.completions.create({ model: 'claude-sonnet-4-5', messages: HI }), { instanceOf: OpenAI.PermissionDeniedError });
  await writeFile(gw.configPath, (await readFile(gw.configPath, 'utf8')).replace('models = ["gpt-4o"]', 'models = ["claude-*"]\nexpires_at = "2000-01-01"'));
  t.is((await adminJson(gw, 'POST', '/v1/admin/reload')).status, 200);
  await t.throwsAsync(client(gw).chat.completions.create({ model: 'claude-sonnet-4-5', messages: HI }), {
    instanceOf: OpenAI.AuthenticationError,
    code: 'key_expired',
  });
  await writeFile(gw.configPath, (await readFile(gw.configPath, 'utf8')).replace('expires_at = "2000-01-01"', ''));
  t.is((await adminJson(gw, 'POST', '/v1/admin/reload')).status, 200);
  t.is((await client(gw).chat.completions.create({ model: 'claude-sonnet-4-5', messages: HI })).object, 'chat.completion');
  await t.throwsAsync(client(gw).chat.completions.create({ model: 'gpt-4o', messages: HI }), { instanceOf: OpenAI.PermissionDeniedError });
});

test("a key's own weekly budget under 40 parallel requests: exactly what the in-flight rule allows, beside the default budget of the other key", async (t) => {
  const now = Date.parse('2026-05-13T09:00:00Z'); // a Wednesday
  const up = await openaiUpstream({ usageOf, delayMs: 100 });
  const gw = await gatewayWith(t, up, 'budget = 4\nbudget_period = "weekly"', `${PRICING}\n[extensions.budget]\ndefault_budget = 2\n`, { clock: () => now });
  const fire = (key: string) =>
    Promise.all(
      Array.from({ length: 20 }, () => post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI, max_tokens: 100 }, key).then((r) => r.status)),
    );
  const [own, dflt] = await Promise.all([fire(KEY), fire(KEY2)]);
  t.is(own.filter((s) => s === 200).length, 4);
  t.is(dflt.filter((s) => s === 200).length, 2);
  t.is(up.received.length, 6);
  const b = (await admin(gw, 'GET', '/v1/budget')).body;
  t.like(
    b.find((e: any) => e.key === 'default'),
    { spent_usd: 4 * PER_REQUEST, reserved_usd: 0, period: 'weekly', period_start: '2026-05-11T00:00:00Z', resets_at: '2026-05-18T00:00:00Z' },
  );
  t.like(
    b.find((e: any) => e.key === 'second'),
    { spent_usd: 2 * PER_REQUEST, budget_usd: 2, period: 'lifetime' },
  );
});
