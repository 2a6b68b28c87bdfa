/**
 * The console's admin API (docs/design.md "Operator console"): usage and spend over time
 * (`/v1/usage`, `/v1/budget` with bucket/group_by/from/to), the request log
 * (`[extensions.request_log]`, `GET /v1/requests`), rate-limit windows (`GET /v1/rate_limit`)
 * and provider health in `GET /v1/admin/providers`; on LevelDB and across instances on Redis.
 */
import test, { type ExecutionContext } from 'ava';
import Anthropic from '@anthropic-ai/sdk';
import { setTimeout as sleep } from 'node:timers/promises';
import { baseConfig, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { redisFor } from '../helpers/redis.ts';
import { admin, client, gatewayWith, HI, KEY, KEY2, openaiUpstream, post, providerSection } from '../helpers/ext-helpers.ts';

const UP_SECRET = 'sk-upstream-secret-value';
const usageOf = (json: any) => ({
  prompt_tokens: 10 + String(json?.messages?.[0]?.content ?? json?.input ?? '').length,
  completion_tokens: json?.max_tokens ?? 5,
});
const PRICING =
  '[pricing."gpt-4o"]\ninput_per_mtok = 2.0\noutput_per_mtok = 10.0\n[pricing."text-embedding-3-small"]\ninput_per_mtok = 1.0\noutput_per_mtok = 0.0\n';

/** Polls the request log until `n` entries match `query` (entries are written just after each answer). */
async function logEntries(gw: { url: string }, query: string, n: number): Promise<any[]> {
  for (let i = 0; ; i++) {
    const r = await admin(gw, 'GET', `/v1/requests${query}`);
    if (r.status !== 200) throw new Error(`GET /v1/requests${query}: ${r.status} ${JSON.stringify(r.body)}`);
    if (r.body.length >= n || i >= 100) return r.body;
    await sleep(20);
  }
}

/** Sums entries' numeric fields by a grouping field (robust to a test crossing an hour boundary). */
function sumBy(entries: any[], field: string): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const e of entries) {
    const g = (out[e[field] ?? 'null'] ??= {});
    for (const [k, v] of Object.entries(e)) if (typeof v === 'number') g[k] = (g[k] ?? 0) + v;
  }
  return out;
}

test('usage over time: hour and day buckets grouped by key, model, provider; errors counted; the lifetime shape', async (t) => {
  const up = await openaiUpstream({ usageOf });
  const gw = await gatewayWith(t, up, '[aliases]\ngpt4 = "gpt-4o"\n\n[extensions.usage]\n');
  const c = client(gw);
  await c.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'abc' }], max_tokens: 7 }); // 13 + 7
  await c.chat.completions.create({ model: 'gpt4', messages: [{ role: 'user', content: 'abcdef' }], max_tokens: 3 }); // 16 + 3
  const s = await c.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }], max_tokens: 4, stream: true }); // 11 + 4
  for await (const _ of s) {
    /* drain */
  }
  await client(gw, KEY2).embeddings.create({ model: 'text-embedding-3-small', input: 'hello' }); // 15
  t.is((await post(gw, '/v1/chat/completions', { model: 'no-such-model', messages: HI })).status, 404);
  up.handle((_req, res) => {
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end('{"error":{"message":"boom"}}');
  });
  t.is((await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI }, KEY2)).status, 502);

  const lifetime = await admin(gw, 'GET', '/v1/usage');
  t.deepEqual(
    lifetime.body.map((e: any) => Object.keys(e)),
    lifetime.body.map(() => [
      'key',
      'model',
      'prompt_tokens',
      'completion_tokens',
      'total_tokens',
      'cached_tokens',
      'cache_write_tokens',
      'reasoning_tokens',
      'cache_hit_rate',
      'requests',
      'estimated_requests',
    ]),
  );

  const hourly = await admin(gw, 'GET', '/v1/usage?bucket=hour&group_by=model');
  t.is(hourly.status, 200);
  t.true(hourly.body.every((e: any) => /^\d{4}-\d\d-\d\dT\d\d:00:00\.000Z$/.test(e.bucket_start) && Date.parse(e.bucket_start) <= Date.now()));
  t.true(hourly.body.every((e: any) => !('key' in e) && !('provider' in e)));
  const byModel = sumBy(hourly.body, 'model');
  t.like(byModel['gpt-4o'], { requests: 4, errors: 1, prompt_tokens: 13 + 16 + 11, completion_tokens: 7 + 3 + 4, total_tokens: 54 });
  t.like(byModel['text-embedding-3-small'], { requests: 1, errors: 0, prompt_tokens: 15, completion_tokens: 0 });
  t.like(byModel[''], { requests: 1, errors: 1, prompt_tokens: 0 }); // the unknown model: never a series of its own
  t.is(Object.keys(byModel).length, 3);

  const byKey = sumBy((await admin(gw, 'GET', '/v1/usage?group_by=key')).body, 'key');
  t.like(byKey.default, { requests: 4, errors: 1, prompt_tokens: 40 });
  t.like(byKey.second, { requests: 2, errors: 1, prompt_tokens: 15 });
  const byProvider = sumBy((await admin(gw, 'GET', '/v1/usage?group_by=provider')).body, 'provider');
  t.like(byProvider.up, { requests: 5, errors: 1 }); // the 502 names the provider that failed
  t.like(byProvider[''], { requests: 1, errors: 1 });

  const all = (await admin(gw, 'GET', '/v1/usage?bucket=hour')).body; // default group: every dimension
  t.true(all.every((e: any) => 'key' in e && 'model' in e && 'provider' in e));
  const daily = (await admin(gw, 'GET', '/v1/usage?bucket=day&group_by=key,model')).body;
  t.true(daily.every((e: any) => e.bucket_start.endsWith('T00:00:00.000Z')));
  t.like(
    sumBy(
      daily.filter((e: any) => e.key === 'default'),
      'model',
    )['gpt-4o'],
    { requests: 3, errors: 0, prompt_tokens: 40 },
  );
  // tags: no key has any yet (virtual keys add them): one null group
  const tagged = (await admin(gw, 'GET', '/v1/usage?group_by=tag:team')).body;
  t.true(tagged.length > 0 && tagged.every((e: any) => e['tag:team'] === null));
  t.like(sumBy(tagged, 'tag:team').null, { requests: 6, errors: 2 });

  // a range: from/to select buckets by their start
  const hour = Math.floor(Date.now() / 3_600_000) * 3_600_000;
  t.deepEqual((await admin(gw, 'GET', `/v1/usage?from=${new Date(hour + 3_600_000).toISOString()}&to=${new Date(hour + 7_200_000).toISOString()}`)).body, []);
  t.true((await admin(gw, 'GET', `/v1/usage?from=${new Date(hour - 86_400_000).toISOString().slice(0, 10)}`)).body.length > 0);

  for (const [q, param] of [
    ['bucket=week', 'bucket'],
    ['group_by=color', 'group_by'],
    ['from=yesterday', 'from'],
    ['from=2030-01-01T00:00:00Z&to=2029-01-01T00:00:00Z', 'from'],
    ['bucket=hour&bucket=day', 'bucket'],
  ]) {
    const r = await admin(gw, 'GET', `/v1/usage?${q}`);
    t.is(r.status, 400, q);
    t.is(r.body.error.param, param, q);
  }
  t.is((await admin(gw, 'GET', '/v1/usage?bucket=hour', KEY)).status, 403);
});

test('spend over time: USD per key and model per hour, as settled; retention_days = 0 turns series off', async (t) => {
  const up = await openaiUpstream({ usageOf });
  const gw = await gatewayWith(t, up, `${PRICING}\n[extensions.usage]\nretention_days = 0\n[extensions.budget]\ndefault_budget = 10.0\n`);
  await client(gw).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'abc' }], max_tokens: 7 }); // 13 * 2 + 7 * 10 = 96 µ$
  await client(gw, KEY2).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'ab' }], max_tokens: 1 }); // 12 * 2 + 10 = 34 µ$
  await client(gw, KEY2).embeddings.create({ model: 'text-embedding-3-small', input: 'hello' }); // 15 µ$
  const series = (await admin(gw, 'GET', '/v1/budget?bucket=hour')).body;
  t.true(series.every((e: any) => Object.keys(e).join() === 'bucket_start,key,model,spent_usd,requests'));
  const pick = (key: string, model: string) =>
    sumBy(
      series.filter((e: any) => e.key === key),
      'model',
    )[model];
  t.like(pick('default', 'gpt-4o'), { requests: 1 });
  t.is(Math.round(pick('default', 'gpt-4o')!.spent_usd * 1e6), 96);
  t.is(Math.round(pick('second', 'gpt-4o')!.spent_usd * 1e6), 34);
  t.is(Math.round(pick('second', 'text-embedding-3-small')!.spent_usd * 1e6), 15);
  const byKey = sumBy((await admin(gw, 'GET', '/v1/budget?bucket=day&group_by=key')).body, 'key');
  t.is(Math.round(byKey.second!.spent_usd * 1e6), 49);
  // the lifetime shape is unchanged and agrees
  const lifetime = (await admin(gw, 'GET', '/v1/budget')).body;
  t.is(Math.round(lifetime.find((e: any) => e.key === 'second').spent_usd * 1e6), 49);
  const off = await admin(gw, 'GET', '/v1/usage?bucket=hour');
  t.is(off.status, 400);
  t.is(off.body.error.code, 'series_disabled');
  t.is((await admin(gw, 'GET', '/v1/usage')).status, 200);
});

test('request log: every request, failed ones included (401, 400, 415, 404, 502, refusals), newest first, filtered; no bodies or secrets', async (t) => {
  const up = await openaiUpstream({ usageOf });
  const gw = await gatewayWith(
    t,
    up,
    `${PRICING}\n[aliases]\ngpt4 = "gpt-4o"\n\n[extensions.rate_limit]\nrequests_per_minute = 4\n[extensions.cache]\n[extensions.request_log]\n`,
  );
  const c = client(gw);
  await c.chat.completions.create({ model: 'gpt4', messages: [{ role: 'user', content: 'abc' }], max_tokens: 7 }); // 1
  await c.chat.completions.create({ model: 'gpt4', messages: [{ role: 'user', content: 'abc' }], max_tokens: 7 }); // 2: cache hit
  const s = await c.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'streamed' }], max_tokens: 4, stream: true }); // 3
  for await (const _ of s) {
    /* drain */
  }
  await new Anthropic({ baseURL: gw.url, apiKey: KEY2, maxRetries: 0 }).messages.create({
    model: 'gpt-4o',
    max_tokens: 9,
    messages: [{ role: 'user', content: 'mm' }],
  }); // key 2
  t.is((await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI }, 'sk-not-a-real-key-0000000000')).status, 401);
  t.is((await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: 'not a list' })).status, 400); // 4
  t.is(
    (await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'text/plain' }, body: 'hi' }))
      .status,
    415,
  ); // 5
  t.is((await post(gw, '/v1/chat/completions', { model: 'no-such-model', messages: HI })).status, 404); // 6
  up.handle((_req, res) => {
    res.writeHead(503, { 'content-type': 'application/json' });
    res.end('{"error":{"message":"overloaded"}}');
  });
  t.is((await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI })).status, 502); // 7
  // refused before onRequest (401, 400, 415, 404) the rate limit never saw: this is the key's 5th admitted request
  t.is((await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI })).status, 429);

  const log = await logEntries(gw, '', 10);
  t.is(log.length, 10);
  const times = log.map((e) => Date.parse(e.time) + e.latency_ms);
  t.deepEqual(
    times,
    [...times].sort((a, b) => b - a),
  ); // newest (last to end) first
  const text = JSON.stringify(log);
  for (const secret of [KEY, KEY2, UP_SECRET, 'sk-not-a-real-key-0000000000', 'streamed', 'not a list']) t.false(text.includes(secret), secret);
  const required = [
    'time',
    'request_id',
    'key',
    'route',
    'model',
    'provider',
    'status',
    'latency_ms',
    'ttfb_ms',
    'prompt_tokens',
    'completion_tokens',
    'cost_usd',
    'cache_hit',
    'error_code',
  ];
  t.true(log.every((e) => required.every((f) => f in e) && !('request_body' in e) && !('response_body' in e)));

  const first = log[log.length - 1];
  t.like(first, {
    key: 'default',
    route: 'chat',
    model: 'gpt4',
    served_model: 'gpt-4o',
    provider: 'up',
    status: 200,
    attempts: 1,
    stream: false,
    prompt_tokens: 13,
    completion_tokens: 7,
    cache_hit: false,
    error_code: null,
  });
  t.is(Math.round(first.cost_usd * 1e6), 96);
  t.true(first.latency_ms >= first.upstream_ms && first.overhead_ms >= 0 && first.ttfb_ms === first.latency_ms);
  t.true(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(first.time));
  t.like(log[log.length - 2], { status: 200, cache_hit: true, provider: null, cost_usd: null, served_model: 'gpt-4o' });
  const streamed = log[log.length - 3];
  t.like(streamed, { stream: true, status: 200, provider: 'up', prompt_tokens: 18, completion_tokens: 4 });
  t.true(streamed.ttfb_ms <= streamed.latency_ms && streamed.ttfb_ms > 0);
  t.like(log[log.length - 4], { key: 'second', route: 'messages', status: 200 });
  t.like(log[log.length - 5], { key: null, status: 401, error_code: 'invalid_api_key', model: null });
  t.like(log[log.length - 6], { key: 'default', status: 400, error_code: 'invalid_request_body', model: 'gpt-4o' });
  t.like(log[log.length - 7], { status: 415, error_code: 'unsupported_media_type' });
  t.like(log[log.length - 8], { status: 404, error_code: 'model_not_found', model: 'no-such-model', served_model: null, provider: null });
  const bad = log[log.length - 9];
  t.like(bad, { status: 502, provider: 'up', served_model: null, attempts: 1, prompt_tokens: null, cost_usd: null }); // the provider that failed
  t.regex(bad.error_message, /overloaded/);
  t.like(log[log.length - 10], { status: 429, error_code: 'rate_limit_exceeded', attempts: 0 });

  // filters
  const only502 = (await admin(gw, 'GET', '/v1/requests?status=5xx')).body;
  t.deepEqual(
    only502.map((e: any) => e.request_id),
    [bad.request_id],
  );
  t.deepEqual(
    (await admin(gw, 'GET', '/v1/requests?status=502&key=default&model=gpt-4o')).body.map((e: any) => e.request_id),
    [bad.request_id],
  );
  t.is((await admin(gw, 'GET', '/v1/requests?status=error')).body.length, 6);
  t.is((await admin(gw, 'GET', '/v1/requests?status=ok')).body.length, 4);
  t.deepEqual(
    (await admin(gw, 'GET', '/v1/requests?key=second')).body.map((e: any) => e.route),
    ['messages'],
  );
  t.is((await admin(gw, 'GET', '/v1/requests?model=gpt4')).body.length, 2); // the requested name (an alias) matches too
  t.is((await admin(gw, 'GET', '/v1/requests?provider=up')).body.length, 4);
  t.is((await admin(gw, 'GET', '/v1/requests?route=messages')).body.length, 1);
  t.deepEqual(
    (await admin(gw, 'GET', '/v1/requests?limit=2')).body.map((e: any) => e.request_id),
    log.slice(0, 2).map((e) => e.request_id),
  );
  const since = new Date(Date.parse(bad.time) + bad.latency_ms).toISOString();
  t.deepEqual(
    (await admin(gw, 'GET', `/v1/requests?since=${since}`)).body.map((e: any) => e.request_id),
    log.slice(0, 2).map((e) => e.request_id),
  );
  t.deepEqual((await admin(gw, 'GET', `/v1/requests?since=${Date.now() + 60_000}`)).body, []);
  for (const [q, param] of [
    ['limit=0', 'limit'],
    ['limit=5000', 'limit'],
    ['status=teapot', 'status'],
    ['since=soon', 'since'],
  ]) {
    const r = await admin(gw, 'GET', `/v1/requests?${q}`);
    t.is(r.status, 400, q);
    t.is(r.body.error.param, param, q);
  }
  t.is((await admin(gw, 'GET', '/v1/requests', KEY)).status, 403);
  t.is((await admin(gw, 'GET', '/v1/requests', 'sk-wrong-admin-token-000000000')).status, 401);
  // the rate-limit window as the console reads it
  const windows = (await admin(gw, 'GET', '/v1/rate_limit')).body;
  t.deepEqual(
    windows.find((w: any) => w.key === 'default'),
    {
      key: 'default',
      window_seconds: 60,
      requests: 4,
      requests_per_minute: 4,
      tokens: null,
      tokens_per_minute: null,
      tool_calls: null,
      tool_calls_per_minute: null,
    },
  );
});

test('request log: max_entries keeps the newest; log_bodies keeps bodies cut to body_max_bytes', async (t) => {
  const up = await openaiUpstream();
  const gw = await gatewayWith(t, up, '[extensions.request_log]\nmax_entries = 3\nlog_bodies = true\nbody_max_bytes = 400\n');
  const c = client(gw);
  const long = 'x'.repeat(1000);
  for (let i = 0; i < 4; i++) await c.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: i === 3 ? long : `n${i}` }] });
  const s = await c.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'stream me' }], stream: true });
  for await (const _ of s) {
    /* drain */
  }
  await sleep(50);
  const log = await logEntries(gw, '', 3);
  t.is(log.length, 3);
  const [streamed, longOne, third] = log;
  t.regex(streamed.request_body, /stream me/);
  t.regex(streamed.response_body, /^\{"id":/); // the events as sent, one JSON per line
  t.true(Buffer.byteLength(longOne.request_body) <= 400 + Buffer.byteLength('…[truncated]'));
  t.true(longOne.request_body.endsWith('…[truncated]'));
  t.regex(third.request_body, /n2/);
  t.regex(third.response_body, /Hello! How can I assist you today/);
});

test('provider health: attempts, failures by class and latency percentiles over 5 and 60 minutes', async (t) => {
  const up = await openaiUpstream();
  const gw = await gatewayWith(t, up, '[extensions.usage]\n');
  for (let i = 0; i < 3; i++) await client(gw).chat.completions.create({ model: 'gpt-4o', messages: HI });
  up.handle((_req, res) => {
    res.writeHead(429, { 'content-type': 'application/json' });
    res.end('{"error":{"message":"slow down"}}');
  });
  t.is((await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI })).status, 429);
  up.handle((_req, res) => {
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end('{"error":{"message":"boom"}}');
  });
  t.is((await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI })).status, 502);
  const p = (await admin(gw, 'GET', '/v1/admin/providers')).body.data[0];
  t.is(p.name, 'up');
  t.like(p.health.last_5m, { requests: 5, served: 3, errors: { rate_limited: 1, server_error: 1, timeout: 0, connect: 0 }, error_rate: 0.4 });
  t.true(p.health.last_5m.latency_ms.p50 > 0 && p.health.last_5m.latency_ms.p95 >= p.health.last_5m.latency_ms.p50);
  t.deepEqual(p.health.last_60m, p.health.last_5m);
  t.true(p.health.minutes.length >= 1 && p.health.minutes.reduce((n: number, m: any) => n + m.requests, 0) === 5);
});

/** Two gateways on one fresh redis-server; undefined when the test skipped. */
async function onRedis(t: ExecutionContext, extra: string): Promise<{ gws: TestGateway[]; up: Awaited<ReturnType<typeof openaiUpstream>> } | undefined> {
  const r = await redisFor(t);
  if (!r) return undefined;
  const up = await openaiUpstream({ usageOf });
  const toml = baseConfig(`${providerSection(up)}\n[store]\nurl = "${r.url}"\n\n${extra}`);
  const gws: TestGateway[] = [];
  t.teardown(async () => {
    for (const g of gws) await g.stop();
    await up.close();
  });
  for (let i = 0; i < 2; i++) gws.push(await startGateway(toml));
  return { gws, up };
}

test('redis: two instances share the hour buckets exactly, and one request log', async (t) => {
  const env = await onRedis(t, `${PRICING}\n[extensions.usage]\n[extensions.budget]\ndefault_budget = 100.0\n[extensions.request_log]\n`);
  if (!env) return;
  const { gws } = env;
  const n = 40;
  await Promise.all(
    Array.from({ length: n }, (_, i) =>
      client(gws[i % 2]!, i % 4 < 2 ? KEY : KEY2).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'abc' }], max_tokens: 1 }),
    ),
  );
  await post(gws[1]!, '/v1/chat/completions', { model: 'missing', messages: HI });
  for (const g of gws) {
    const byKey = sumBy((await admin(g, 'GET', '/v1/usage?group_by=key')).body, 'key');
    t.like(byKey.default, { requests: n / 2 + 1, errors: 1, prompt_tokens: 13 * (n / 2), completion_tokens: n / 2 });
    t.like(byKey.second, { requests: n / 2, errors: 0, prompt_tokens: 13 * (n / 2) });
    const spend = sumBy((await admin(g, 'GET', '/v1/budget?group_by=model')).body, 'model');
    t.is(Math.round(spend['gpt-4o']!.spent_usd * 1e6), n * (13 * 2 + 10));
  }
  const log = await logEntries(gws[0]!, '', n + 1);
  t.is(log.length, n + 1);
  t.is(new Set(log.map((e) => e.request_id)).size, n + 1);
  t.deepEqual(
    (await logEntries(gws[1]!, '?status=404', 1)).map((e) => e.model),
    ['missing'],
  );
});
