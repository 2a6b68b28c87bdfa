/**
 * What operators look for in /v1/usage and the request log: every failed request counts as
 * an error of its key (refusals before admission too: 400, 401; and 429), an upstream 500
 * has one code on every kind with the upstream's own beside it, and latency percentiles per
 * model (`metrics=latency`) show a model the mock made slow.
 */
import test from 'ava';
import { setTimeout as sleep } from 'node:timers/promises';
import { admin, client, gatewayWith, HI, KEY, KEY2, openaiUpstream, post } from '../helpers/ext-helpers.ts';

/** Polls `fn` until it returns a value (background writes land within a second or two). */
async function eventually<T>(fn: () => Promise<T | undefined>, ms = 5000): Promise<T | undefined> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined || Date.now() > end) return v;
    await sleep(50);
  }
}

/** Sums entries' numeric fields by a grouping field. */
function sumBy(entries: any[], field: string): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const e of entries) {
    const g = (out[e[field] ?? 'null'] ??= {});
    for (const [k, v] of Object.entries(e)) if (typeof v === 'number') g[k] = (g[k] ?? 0) + v;
  }
  return out;
}

test('by-key errors count refusals (400, 401, 429) and upstream failures; an upstream 500 is upstream_error with its own code kept beside', async (t) => {
  const up = await openaiUpstream();
  const gw = await gatewayWith(t, up, '[extensions.rate_limit]\nrequests_per_minute = 2\n[extensions.usage]\n[extensions.request_log]\n');
  await client(gw).chat.completions.create({ model: 'gpt-4o', messages: HI });
  t.is((await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: 'not a list' })).status, 400);
  t.is((await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI }, 'sk-no-such-key-0000000000000000')).status, 401);
  for (let i = 0; i < 2; i++) await client(gw, KEY2).chat.completions.create({ model: 'gpt-4o', messages: HI });
  t.is((await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI }, KEY2)).status, 429);
  up.handle((_req, res) => {
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end('{"error":{"message":"boom","type":"server_error","code":"server_error"}}');
  });
  const failed = await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI }, KEY);
  t.is(failed.status, 502);
  t.like(((await failed.json()) as any).error, { code: 'upstream_error', upstream_status: 500, upstream_code: 'server_error' });

  const expected = { default: { requests: 3, errors: 2 }, second: { requests: 3, errors: 1 }, '(unauthenticated)': { requests: 1, errors: 1 } };
  const byKey = await eventually(async () => {
    const s = sumBy((await admin(gw, 'GET', '/v1/usage?group_by=key')).body, 'key');
    return Object.entries(expected).every(([k, v]) => s[k]?.errors === v.errors) ? s : undefined;
  });
  t.truthy(byKey, 'every failure counted');
  for (const [k, v] of Object.entries(expected)) t.like(byKey?.[k], v, k);
  // errors by code: every failure under gw's catalog code
  const entries = (await admin(gw, 'GET', '/v1/usage?group_by=key')).body as any[];
  const codes: Record<string, number> = {};
  for (const e of entries) for (const [c, n] of Object.entries(e.error_codes as Record<string, number>)) codes[c] = (codes[c] ?? 0) + n;
  t.like(codes, { upstream_error: 1, invalid_request_body: 1 });
  t.is(
    Object.values(codes).reduce((a, n) => a + n, 0),
    4,
  );
  // the refused 400 still names its model
  const byModel = sumBy((await admin(gw, 'GET', '/v1/usage?group_by=model')).body, 'model');
  t.like(byModel['gpt-4o'], { requests: 6, errors: 3 });

  const log = await eventually(async () => {
    const r = (await admin(gw, 'GET', '/v1/requests?status=502')).body;
    return r.length ? r : undefined;
  });
  t.like(log?.[0], { error_code: 'upstream_error', upstream_status: 500, upstream_code: 'server_error' });
  const ok = (await admin(gw, 'GET', '/v1/requests?status=ok')).body;
  t.like(ok[0], { error_code: null, upstream_status: null, upstream_code: null });
});

test('metrics=latency: p50/p95/p99 per model and provider show the model the mock made slow, by hour and by minute; ttfb for streams; bad metrics is a 400', async (t) => {
  const up = await openaiUpstream({ usageOf: () => ({ prompt_tokens: 3, completion_tokens: 2 }) });
  const slow = await openaiUpstream({ delayMs: 250 });
  t.teardown(() => slow.close());
  const gw = await gatewayWith(
    t,
    up,
    `[providers.slowup]\napi_key = "sk-x"\nbase_url = "${slow.origin}/v1"\nmax_retries = 0\nmodels = ["o4-mini"]\n[extensions.usage]\n`,
  );
  const c = client(gw);
  for (let i = 0; i < 4; i++) {
    await c.chat.completions.create({ model: 'gpt-4o', messages: HI });
    await c.chat.completions.create({ model: 'o4-mini', messages: HI });
  }
  const s = await c.chat.completions.create({ model: 'gpt-4o', messages: HI, stream: true });
  for await (const _ of s) {
    /* drain */
  }
  const rows = await eventually(async () => {
    const r = (await admin(gw, 'GET', '/v1/usage?metrics=latency&group_by=model,provider')).body;
    return r.reduce((a: number, e: any) => a + e.requests, 0) === 9 ? r : undefined;
  });
  t.truthy(rows, 'samples flushed within a second');
  const by = Object.fromEntries((rows ?? []).map((e: any) => [e.model, e]));
  t.like(by['o4-mini'], { provider: 'slowup', requests: 4, streams: 0, ttfb_p50_ms: null });
  t.like(by['gpt-4o'], { provider: 'up', requests: 5, streams: 1 });
  t.true(by['o4-mini'].latency_p50_ms >= 250 * 0.99, `slow p50 ${by['o4-mini'].latency_p50_ms}`);
  t.true(by['gpt-4o'].latency_p95_ms < by['o4-mini'].latency_p50_ms, 'the fast model stays fast');
  t.true(by['gpt-4o'].ttfb_p50_ms > 0);
  t.true(by['o4-mini'].overhead_p99_ms < by['o4-mini'].latency_p50_ms, 'overhead is gw time, not the upstream wait');
  t.true(/T\d\d:00:00\.000Z$/.test(rows![0].bucket_start));

  const minutes = (await admin(gw, 'GET', '/v1/usage?metrics=latency&bucket=minute&group_by=model')).body;
  t.is(
    minutes.filter((e: any) => e.model === 'o4-mini').reduce((a: number, e: any) => a + e.requests, 0),
    4,
  );
  t.true(minutes.every((e: any) => /T\d\d:\d\d:00\.000Z$/.test(e.bucket_start)));
  const day = (await admin(gw, 'GET', `/v1/usage?metrics=latency&bucket=day&from=${new Date().toISOString().slice(0, 10)}`)).body;
  t.is(
    day.reduce((a: number, e: any) => a + e.requests, 0),
    9,
  );

  const bad = await admin(gw, 'GET', '/v1/usage?metrics=speed');
  t.is(bad.status, 400);
  t.like(bad.body.error, { code: 'invalid_query', param: 'metrics' });
  t.is((await admin(gw, 'GET', '/v1/usage?bucket=minute')).status, 400, 'minute buckets are latency only');
});

test('latency = false keeps no sketches: metrics=latency is a 400 saying so, usage series unchanged', async (t) => {
  const up = await openaiUpstream();
  const gw = await gatewayWith(t, up, '[extensions.usage]\nlatency = false\n');
  await client(gw).chat.completions.create({ model: 'gpt-4o', messages: HI });
  const r = await admin(gw, 'GET', '/v1/usage?metrics=latency');
  t.is(r.status, 400);
  t.like(r.body.error, { code: 'invalid_query', param: 'metrics', message: 'latency over time is off: [extensions.usage] latency = false' });
  t.is((await admin(gw, 'GET', '/v1/usage?group_by=model')).body[0].requests, 1);
});
