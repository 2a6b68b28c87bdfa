/**
 * Several gw instances on one Redis behave as one gateway (docs/design.md "Store and
 * processes"): three in-process instances with the same `[store] url` and the same mock
 * upstream, load spread over all three, against a real redis-server.
 */
import test, { type ExecutionContext } from 'ava';
import OpenAI from 'openai';
import { POLL_MS } from '../../server/runtime/replication.ts';
import { baseConfig, type TestGateway } from '../helpers/gateway.ts';
import { redisFor } from '../helpers/redis.ts';
import { within } from '../helpers/within.ts';
import type { MockUpstream } from '../helpers/upstream.ts';

/** A /v1/usage entry's parts when the upstream reported no cache or reasoning tokens. */
const NO_PARTS = { cached_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0, cache_hit_rate: 0 };
import { admin, ADMIN_TOKEN, gatewaysOf, HI, json, KEY, KEY2, openaiUpstream, post, providerSection } from '../helpers/ext-helpers.ts';

/** Admin POST with a JSON body; raw Response. */
function adminPost(g: { url: string }, path: string, body: unknown): Promise<Response> {
  return fetch(`${g.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** docs/design.md: runtime provider and key changes reach every instance within 2 s. */
const PROPAGATION_MS = 2000;

/** A fresh redis-server and `n` gateways sharing it; undefined when the test skipped (no redis-server, not CI). */
async function instances(t: ExecutionContext, up: MockUpstream, extra: string, n = 3): Promise<TestGateway[] | undefined> {
  const r = await redisFor(t);
  if (!r) {
    await up.close();
    return undefined;
  }
  return gatewaysOf(t, up, baseConfig(`${providerSection(up)}\n[store]\nurl = "${r.url}"\n\n${extra}`), n);
}

test('three instances hold requests_per_minute exactly under parallel load spread over all three', async (t) => {
  const up = await openaiUpstream({ delayMs: 20 });
  const gws = await instances(t, up, '[extensions.rate_limit]\nrequests_per_minute = 30\n');
  if (!gws) return;
  const results = await Promise.all(
    Array.from({ length: 120 }, (_, i) =>
      post(gws[i % 3]!, '/v1/chat/completions', { model: 'gpt-4o', messages: HI }).then(async (r) => ({
        i,
        status: r.status,
        retry: r.headers.get('retry-after'),
        body: await json(r),
      })),
    ),
  );
  const ok = results.filter((r) => r.status === 200);
  const refused = results.filter((r) => r.status === 429);
  t.is(ok.length, 30);
  t.is(refused.length, 90);
  t.is(up.received.length, 30); // refused requests never reach the upstream
  t.is(refused[0]!.body.error.code, 'rate_limit_exceeded');
  t.true(refused.every((r) => Number(r.retry) >= 1 && Number(r.retry) <= 60));
  // every instance admitted some and refused some: the limit is one, not three
  for (let g = 0; g < 3; g++) t.true(ok.some((r) => r.i % 3 === g) || refused.some((r) => r.i % 3 === g));
  t.log(`admitted per instance: ${[0, 1, 2].map((g) => ok.filter((r) => r.i % 3 === g).length).join(', ')} (limit 30 in total)`);
  // the other key has its own window, shared as well
  const other = await Promise.all(Array.from({ length: 45 }, (_, i) => post(gws[i % 3]!, '/v1/chat/completions', { model: 'gpt-4o', messages: HI }, KEY2)));
  t.is(other.filter((r) => r.status === 200).length, 30);
});

test('a budget across instances is not overspent beyond the in-flight rule; usage and spend agree on every instance', async (t) => {
  // $0.01 per output token: max_tokens 100 → ~$1 a request; budget $5
  const pricing = '[pricing."gpt-4o"]\ninput_per_mtok = 10\noutput_per_mtok = 10000\n';
  const up = await openaiUpstream({ usageOf: (req) => ({ prompt_tokens: 10, completion_tokens: req?.max_tokens ?? 50 }), delayMs: 200 });
  const gws = await instances(t, up, `${pricing}\n[extensions.budget]\ndefault_budget = 5.0\n[extensions.usage]\n`);
  if (!gws) return;
  const results = await Promise.all(
    Array.from({ length: 60 }, (_, i) =>
      post(gws[i % 3]!, '/v1/chat/completions', { model: 'gpt-4o', messages: HI, max_tokens: 100 }).then(async (r) => ({
        status: r.status,
        body: await json(r),
      })),
    ),
  );
  const ok = results.filter((r) => r.status === 200).length;
  const refused = results.filter((r) => r.status === 429);
  t.is(ok + refused.length, 60);
  t.is(refused[0]!.body.error.code, 'budget_exceeded');
  t.is(up.received.length, ok);
  const perRequest = (10 * 10 + 100 * 10_000) / 1e6; // $1.0001
  const budgets = await Promise.all(gws.map((g) => admin(g, 'GET', '/v1/budget')));
  const b = budgets[0]!.body.find((x: any) => x.key === 'default');
  for (const other of budgets) t.deepEqual(other.body, budgets[0]!.body); // one view from every instance
  t.is(b.spent_usd, Math.round(ok * perRequest * 1e9) / 1e9);
  t.is(b.reserved_usd, 0);
  const overspend = b.spent_usd - 5;
  t.log(`admitted ${ok} of 60 over 3 instances; spent $${b.spent_usd} of $5; overspend $${overspend.toFixed(6)} (one request $${perRequest})`);
  t.true(overspend < perRequest, `overspend ${overspend} must stay below one in-flight request`);
  t.is(ok, 5); // all 60 arrive together: admitted while spent + other holds < $5
  for (const g of gws) t.is((await post(g, '/v1/chat/completions', { model: 'gpt-4o', messages: HI, max_tokens: 1 })).status, 429);
  t.is(up.received.length, ok);
  const usage = (await admin(gws[2]!, 'GET', '/v1/usage')).body;
  t.deepEqual(usage, [
    {
      key: 'default',
      model: 'gpt-4o',
      prompt_tokens: 10 * ok,
      completion_tokens: 100 * ok,
      total_tokens: 110 * ok,
      ...NO_PARTS,
      requests: ok,
      estimated_requests: 0,
    },
  ]);
});

test('usage totals over three instances equal the sum of upstream-reported usage (chat, streams, embeddings)', async (t) => {
  // usage derived from the request so every call reports something different
  const usageOf = (req: any) => ({
    prompt_tokens: 3 + String(req?.messages?.[0]?.content ?? req?.input ?? '').length,
    completion_tokens: req?.max_tokens ?? 0,
  });
  const up = await openaiUpstream({ usageOf });
  const gws = await instances(t, up, '[extensions.usage]\n[extensions.rate_limit]\nrequests_per_minute = 1000\ntokens_per_minute = 10000000\n');
  if (!gws) return;
  const expected = new Map<string, { prompt: number; completion: number; requests: number }>();
  const add = (key: string, model: string, u: { prompt_tokens: number; completion_tokens: number }) => {
    const k = `${key}/${model}`;
    const e = expected.get(k) ?? { prompt: 0, completion: 0, requests: 0 };
    e.prompt += u.prompt_tokens;
    e.completion += u.completion_tokens;
    e.requests++;
    expected.set(k, e);
  };
  const calls: Array<Promise<void>> = [];
  for (let i = 0; i < 90; i++) {
    const gw = gws[i % 3]!;
    const key = i % 2 ? KEY2 : KEY;
    const name = i % 2 ? 'second' : 'default';
    const c = new OpenAI({ baseURL: gw.baseURL, apiKey: key, maxRetries: 0 });
    const content = `message number ${i} ${'x'.repeat(i % 7)}`;
    const kind = i % 3;
    if (kind === 0) {
      const req = { model: 'gpt-4o', messages: [{ role: 'user' as const, content }], max_tokens: 10 + i };
      add(name, 'gpt-4o', usageOf(req));
      calls.push(c.chat.completions.create(req).then(() => undefined));
    } else if (kind === 1) {
      const req = { model: 'gpt-4o', messages: [{ role: 'user' as const, content }], max_tokens: 5 + i, stream: true as const };
      add(name, 'gpt-4o', usageOf(req));
      calls.push(
        c.chat.completions.create(req).then(async (s) => {
          for await (const _ of s) void _;
        }),
      );
    } else {
      const req = { model: 'text-embedding-3-small', input: content };
      add(name, 'text-embedding-3-small', { prompt_tokens: usageOf(req).prompt_tokens, completion_tokens: 0 });
      calls.push(c.embeddings.create(req).then(() => undefined));
    }
  }
  await Promise.all(calls);
  const want = [...expected]
    .map(([k, e]) => {
      const [key, model] = k.split('/');
      return {
        key,
        model,
        prompt_tokens: e.prompt,
        completion_tokens: e.completion,
        total_tokens: e.prompt + e.completion,
        ...NO_PARTS,
        requests: e.requests,
        estimated_requests: 0,
      };
    })
    .sort((a, b) => (a.key + a.model < b.key + b.model ? -1 : 1));
  for (const g of gws) t.deepEqual((await admin(g, 'GET', '/v1/usage')).body, want);
  t.is(up.received.length, 90);
});

test('a cache entry written via one instance is hit via another', async (t) => {
  const up = await openaiUpstream();
  const gws = await instances(t, up, '[extensions.cache]\nttl_seconds = 60\n');
  if (!gws) return;
  const body = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'cache me across instances' }] });
  const first = await post(gws[0]!, '/v1/chat/completions', body);
  t.is(first.headers.get('x-gw-cache'), 'miss');
  const text = await first.text();
  for (const g of [gws[1]!, gws[2]!]) {
    const r = await post(g, '/v1/chat/completions', body);
    t.is(r.status, 200);
    t.is(r.headers.get('x-gw-cache'), 'hit');
    t.is(await r.text(), text);
  }
  t.is(up.received.length, 1);
  // cleared on one instance: gone on all
  t.is((await admin(gws[2]!, 'DELETE', '/v1/cache')).status, 204);
  t.is((await post(gws[1]!, '/v1/chat/completions', body)).headers.get('x-gw-cache'), 'miss');
  t.is(up.received.length, 2);
});

test('runtime keys and providers: created, revoked or deleted on one instance, seen by the others within 2 s', async (t) => {
  const up = await openaiUpstream();
  const gws = await instances(t, up, '');
  if (!gws) return;
  const [a, b, c] = gws as [TestGateway, TestGateway, TestGateway];
  const chat = (g: TestGateway, key: string, model = 'gpt-4o') => post(g, '/v1/chat/completions', { model, messages: HI }, key).then((r) => r.status);

  const created = await adminPost(a, '/v1/admin/keys', { name: 'shared' });
  t.is(created.status, 201);
  const { key } = (await created.json()) as { key: string };
  t.is(await chat(a, key), 200);
  const seenCreate = await Promise.all(
    [b, c].map((g) => within(t, 'created key on another instance', PROPAGATION_MS, async () => (await chat(g, key)) === 200)),
  );

  t.is((await admin(b, 'DELETE', '/v1/admin/keys/shared')).status, 204);
  t.is(await chat(b, key), 401);
  const seenRevoke = await Promise.all(
    [a, c].map((g) => within(t, 'revoked key on another instance', PROPAGATION_MS, async () => (await chat(g, key)) === 401)),
  );

  const made = await adminPost(c, '/v1/admin/providers', {
    name: 'rt',
    kind: 'selfhosted',
    api_key: 'sk-upstream-secret-value',
    base_url: `${up.origin}/v1`,
    models: ['rt-model'],
  });
  t.is(made.status, 201);
  const seenProvider = await Promise.all(
    [a, b].map((g) => within(t, 'runtime provider on another instance', PROPAGATION_MS, async () => (await chat(g, KEY, 'rt-model')) === 200)),
  );
  for (const g of gws) t.true(((await admin(g, 'GET', '/v1/admin/providers')).body.data as Array<{ name: string }>).some((p) => p.name === 'rt'));
  t.is((await admin(a, 'DELETE', '/v1/admin/providers/rt')).status, 204);
  const seenDelete = await Promise.all(
    [b, c].map((g) => within(t, 'deleted provider on another instance', PROPAGATION_MS, async () => (await chat(g, KEY, 'rt-model')) === 404)),
  );
  // a name taken on one instance is taken on all (the records are shared)
  t.is((await adminPost(b, '/v1/admin/keys', { name: 'again' })).status, 201);
  await within(t, 'second key on instance a', PROPAGATION_MS, async () =>
    ((await admin(a, 'GET', '/v1/admin/keys')).body.data as Array<{ name: string }>).some((k) => k.name === 'again'),
  );
  t.is((await adminPost(a, '/v1/admin/keys', { name: 'again' })).status, 409);
  t.log(
    `propagation (poll every ${POLL_MS} ms), ms: key created ${seenCreate.join('/')}, key revoked ${seenRevoke.join('/')}, provider created ${seenProvider.join('/')}, provider deleted ${seenDelete.join('/')}`,
  );
});

test('a key or provider name just taken on one instance is 409 on another before its poll (never overwritten)', async (t) => {
  const up = await openaiUpstream();
  const gws = await instances(t, up, '', 2);
  if (!gws) return;
  const [a, b] = gws as [TestGateway, TestGateway];
  const first = await adminPost(a, '/v1/admin/keys', { name: 'race' });
  t.is(first.status, 201);
  const { key } = (await first.json()) as { key: string };
  // at once, well within b's poll interval
  t.is((await adminPost(b, '/v1/admin/keys', { name: 'race' })).status, 409);
  t.is(await post(a, '/v1/chat/completions', { model: 'gpt-4o', messages: HI }, key).then((r) => r.status), 200);
  const section = { kind: 'selfhosted', api_key: 'sk-upstream-secret-value', base_url: `${up.origin}/v1`, models: ['rt-model'] };
  t.is((await adminPost(b, '/v1/admin/providers', { name: 'rt-race', ...section })).status, 201);
  t.is((await adminPost(a, '/v1/admin/providers', { name: 'rt-race', ...section })).status, 409);
  t.is((await admin(a, 'DELETE', '/v1/admin/keys/race')).status, 204);
  t.is((await admin(b, 'DELETE', '/v1/admin/keys/race')).status, 404);
});
