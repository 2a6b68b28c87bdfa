/**
 * Virtual keys over three gw instances on one Redis (docs/design.md "Virtual keys", "Store
 * and processes"): per-key rate limits, max_parallel_requests and a monthly budget stay
 * exact with the load spread over all three, and PATCH / rotate made on one instance reach
 * the others within 2 s.
 */
import test, { type ExecutionContext } from 'ava';
import OpenAI from 'openai';
import { setTimeout as sleep } from 'node:timers/promises';
import { baseConfig, KEY, KEY2, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { redisFor } from '../helpers/redis.ts';
import { within } from '../helpers/within.ts';
import { replySse, startUpstream, toSse, type MockUpstream } from '../helpers/upstream.ts';
import { admin, adminJson, HI, json, openaiUpstream, post, providerSection } from '../helpers/ext-helpers.ts';

/** docs/design.md "Store and processes": runtime provider and key changes reach every instance within 2 s. */
const PROPAGATION_MS = 2000;

/** `n` gateways on a fresh redis-server, `[keys.default]` carrying `settings`; undefined when the test skipped. */
async function instances(
  t: ExecutionContext,
  up: MockUpstream,
  settings: string,
  extra: string,
  opts: Parameters<typeof startGateway>[1] = {},
  n = 3,
): Promise<TestGateway[] | undefined> {
  const r = await redisFor(t);
  if (!r) {
    await up.close();
    return undefined;
  }
  const toml = baseConfig(`${providerSection(up)}\n[store]\nurl = "${r.url}"\n\n${extra}`).replace(`key = "${KEY}"\n`, `key = "${KEY}"\n${settings}\n`);
  const gws: TestGateway[] = [];
  t.teardown(async () => {
    for (const g of gws) await g.stop();
    await up.close();
  });
  for (let i = 0; i < n; i++) gws.push(await startGateway(toml, opts));
  return gws;
}

test('three instances: per-key requests_per_minute beside the default, exact under load spread over all three', async (t) => {
  const up = await openaiUpstream({ delayMs: 20 });
  const gws = await instances(t, up, 'requests_per_minute = 11', '[extensions.rate_limit]\nrequests_per_minute = 17\n');
  if (!gws) return;
  const fire = (key: string, n: number) =>
    Promise.all(
      Array.from({ length: n }, (_, i) =>
        post(gws[i % 3]!, '/v1/chat/completions', { model: 'gpt-4o', messages: HI }, key).then((r) => ({ i, status: r.status })),
      ),
    );
  const [own, dflt] = await Promise.all([fire(KEY, 60), fire(KEY2, 60)]);
  t.is(own.filter((r) => r.status === 200).length, 11);
  t.is(dflt.filter((r) => r.status === 200).length, 17);
  t.is(up.received.length, 28);
  t.log(`key 'default' (own 11) admitted per instance: ${[0, 1, 2].map((g) => own.filter((r) => r.status === 200 && r.i % 3 === g).length).join(', ')}`);
});

test('three instances: max_parallel_requests holds across instances; slots come back', async (t) => {
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  const chunks = [0, 1].map((i) => ({
    id: 'c',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'gpt-4o',
    choices: [{ index: 0, delta: { content: `w${i}` }, finish_reason: i === 1 ? 'stop' : null }],
  }));
  const up = await startUpstream(async (_req, res) => {
    await gate;
    await replySse(res, toSse(chunks));
  });
  const gws = await instances(t, up, 'max_parallel_requests = 4', '');
  if (!gws) return;
  const results = Array.from({ length: 30 }, (_, i) =>
    new OpenAI({ baseURL: gws[i % 3]!.baseURL, apiKey: KEY, maxRetries: 0 }).chat.completions.create({ model: 'gpt-4o', messages: HI, stream: true }).then(
      async (s) => {
        for await (const _ of s) void _;
        return 200;
      },
      (err: InstanceType<typeof OpenAI.APIError>) => err.status ?? 0,
    ),
  );
  let done = 0;
  for (const r of results) void r.then(() => done++);
  while (done < 26) await sleep(5);
  t.is(up.received.length, 4);
  open();
  const statuses = await Promise.all(results);
  t.is(statuses.filter((s) => s === 200).length, 4);
  t.is(statuses.filter((s) => s === 429).length, 26);
  // every slot came back: 4 at once again, on any instance
  const again = await Promise.all(
    [0, 1, 2, 0].map((g) => post(gws[g]!, '/v1/chat/completions', { model: 'gpt-4o', messages: HI, stream: true }).then((r) => r.status)),
  );
  t.deepEqual(again, [200, 200, 200, 200]);
});

test('three instances: a monthly per-key budget is not overspent beyond the in-flight rule, and resets with the month on every instance', async (t) => {
  let now = Date.parse('2026-05-31T12:00:00Z');
  const up = await openaiUpstream({ usageOf: (req) => ({ prompt_tokens: 10, completion_tokens: req?.max_tokens ?? 50 }), delayMs: 150 });
  const gws = await instances(
    t,
    up,
    'budget = 5\nbudget_period = "monthly"',
    '[pricing."gpt-4o"]\ninput_per_mtok = 10\noutput_per_mtok = 10000\n\n[extensions.budget]\ndefault_budget = 1000\n',
    { clock: () => now },
  );
  if (!gws) return;
  const burst = () =>
    Promise.all(
      Array.from({ length: 45 }, (_, i) =>
        post(gws[i % 3]!, '/v1/chat/completions', { model: 'gpt-4o', messages: HI, max_tokens: 100 }).then(async (r) => ({
          status: r.status,
          body: await json(r),
        })),
      ),
    );
  const perRequest = 1.0001;
  let results = await burst();
  t.is(results.filter((r) => r.status === 200).length, 5);
  t.is(results.find((r) => r.status === 429)!.body.error.code, 'budget_exceeded');
  const views = await Promise.all(gws.map((g) => admin(g, 'GET', '/v1/budget')));
  for (const v of views) t.deepEqual(v.body, views[0]!.body);
  t.like(
    views[0]!.body.find((e: any) => e.key === 'default'),
    { spent_usd: 5 * perRequest, budget_usd: 5, reserved_usd: 0, period: 'monthly', period_start: '2026-05-01T00:00:00Z', resets_at: '2026-06-01T00:00:00Z' },
  );
  now = Date.parse('2026-06-01T00:00:00Z');
  results = await burst();
  t.is(results.filter((r) => r.status === 200).length, 5);
  const history = (await admin(gws[1]!, 'GET', '/v1/budget?history=true')).body.filter((e: any) => e.key === 'default');
  t.deepEqual(
    history.map((e: any) => [e.period_start, e.spent_usd]),
    [
      [undefined, 10 * perRequest], // lifetime
      ['2026-05-01T00:00:00Z', 5 * perRequest],
      ['2026-06-01T00:00:00Z', 5 * perRequest],
    ],
  );
  t.is(up.received.length, 10);
});

test('PATCH and rotate on one instance take effect on the others within 2 s', async (t) => {
  const up = await openaiUpstream();
  const gws = await instances(t, up, '', '[extensions.rate_limit]\nrequests_per_minute = 1000\n');
  if (!gws) return;
  const [a, b, c] = gws as [TestGateway, TestGateway, TestGateway];
  const chat = (g: TestGateway, key: string, model = 'gpt-4o') => post(g, '/v1/chat/completions', { model, messages: HI }, key).then((r) => r.status);
  const created = await adminJson(a, 'POST', '/v1/admin/keys', { name: 'team', models: ['gpt-4o'] });
  t.is(created.status, 201);
  const first: string = created.body.key;
  await Promise.all([b, c].map((g) => within(t, 'created key', PROPAGATION_MS, async () => (await chat(g, first)) === 200)));
  t.is(await chat(c, first, 'text-embedding-3-small'), 403);

  // PATCH on b: a and c allow the new model, with the same secret, within 2 s
  t.is((await adminJson(b, 'PATCH', '/v1/admin/keys/team', { models: ['gpt-4o', 'text-embedding-3-small'], requests_per_minute: 1000 })).status, 200);
  const seenPatch = await Promise.all(
    [a, c].map((g) => within(t, 'patched models on another instance', PROPAGATION_MS, async () => (await chat(g, first, 'text-embedding-3-small')) === 200)),
  );
  for (const g of gws)
    t.like(
      (await admin(g, 'GET', '/v1/admin/keys')).body.data.find((k: any) => k.name === 'team'),
      { models: ['gpt-4o', 'text-embedding-3-small'], requests_per_minute: 1000 },
    );

  // rotate on c: the old secret stops on a and b, the new one works there, within 2 s
  const rotated = await adminJson(c, 'POST', '/v1/admin/keys/team/rotate');
  t.is(rotated.status, 200);
  const second: string = rotated.body.key;
  t.is(await chat(c, first), 401);
  const seenRotate = await Promise.all(
    [a, b].map((g) => within(t, 'rotation on another instance', PROPAGATION_MS, async () => (await chat(g, first)) === 401 && (await chat(g, second)) === 200)),
  );
  // a PATCH from an instance that has not polled yet is made on the records as stored (no lost update)
  t.is((await adminJson(a, 'PATCH', '/v1/admin/keys/team', { tags: { team: 'search' } })).status, 200);
  const listed = (await admin(b, 'GET', '/v1/admin/keys')).body.data.find((k: any) => k.name === 'team');
  await within(
    t,
    'tags on b',
    PROPAGATION_MS,
    async () => (await admin(b, 'GET', '/v1/admin/keys')).body.data.find((k: any) => k.name === 'team').tags?.team === 'search',
  );
  t.like(listed, { models: ['gpt-4o', 'text-embedding-3-small'] });
  t.is(await chat(b, second), 200);
  t.log(`propagation, ms: patch ${seenPatch.join('/')}, rotate ${seenRotate.join('/')}`);
});
