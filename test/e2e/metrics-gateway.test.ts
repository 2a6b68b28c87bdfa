import test from 'ava';
import { estimateTokens } from '../../lib/common/estimate.ts';
import { ADMIN_TOKEN, baseConfig, KEY, KEY2, startGateway } from '../helpers/gateway.ts';
import { fixture, replyJson, startUpstream } from '../helpers/upstream.ts';
import { client, gatewayWith, HI, openaiUpstream, post } from '../helpers/ext-helpers.ts';
import { parseMetrics, scrape, value } from './metrics-helpers.ts';

const USAGE = { prompt_tokens: 10, completion_tokens: 5 };
const PRICING = '[pricing."gpt-4o"]\ninput_per_mtok = 2.5\noutput_per_mtok = 10.0\n';

test('metrics: requests by route/model/provider/status, cache hits and misses, a rate-limit refusal, tokens and USD by key and model, latency histograms; scrapes and /v1/models are not counted', async (t) => {
  const up = await openaiUpstream({ usageOf: () => USAGE });
  const gw = await gatewayWith(t, up, `${PRICING}\n[extensions.cache]\n[extensions.rate_limit]\nrequests_per_minute = 4\n`);
  const send = async (body: unknown) => {
    const r = await post(gw, '/v1/chat/completions', body);
    await r.arrayBuffer();
    return r;
  };
  const A = { model: 'gpt-4o', messages: HI };
  const B = { model: 'gpt-4o', messages: HI, temperature: 0 };
  t.is((await send(A)).headers.get('x-gw-cache'), 'miss');
  t.is((await send(B)).headers.get('x-gw-cache'), 'miss');
  t.is((await send(B)).headers.get('x-gw-cache'), 'hit');
  t.is((await send({ ...A, temperature: 1 })).headers.get('x-gw-cache'), 'miss');
  t.is((await send(A)).status, 429); // 5th request of KEY's window
  // KEY2: a stream and an embeddings call
  const c2 = client(gw, KEY2);
  const stream = await c2.chat.completions.create({ model: 'gpt-4o', messages: HI, stream: true });
  for await (const _ of stream);
  await c2.embeddings.create({ model: 'text-embedding-3-small', input: 'x' });
  await c2.models.list();

  const m = await scrape(gw.url);
  const req = (labels: Record<string, string>) => value(m, 'gw_requests_total', labels);
  t.is(req({ route: 'chat', model: 'gpt-4o', provider: 'up', status: '200' }), 4); // three misses + the stream
  t.is(req({ route: 'chat', model: 'gpt-4o', provider: '', status: '200' }), 1); // the cache hit: no provider answered
  t.is(req({ route: 'chat', model: 'gpt-4o', provider: '', status: '429' }), 1);
  t.is(req({ route: 'embeddings', model: 'text-embedding-3-small', provider: 'up', status: '200' }), 1);
  t.is(req({}), 7, 'GET /v1/models and the scrape are not gateway requests');
  t.is(value(m, 'gw_cache_requests_total', { result: 'hit' }), 1);
  t.is(value(m, 'gw_cache_requests_total', { result: 'miss' }), 3, 'the stream is not looked up, the refused request never reached the cache');
  t.is(value(m, 'gw_refusals_total', { reason: 'rate_limit' }), 1);
  t.is(value(m, 'gw_refusals_total'), 1);
  // tokens: three upstream chat answers for `default`, stream + embeddings for `second`
  t.is(value(m, 'gw_tokens_total', { key: 'default', model: 'gpt-4o', type: 'prompt' }), 30);
  t.is(value(m, 'gw_tokens_total', { key: 'default', model: 'gpt-4o', type: 'completion' }), 15);
  t.is(value(m, 'gw_tokens_total', { key: 'second', model: 'gpt-4o', type: 'prompt' }), 10);
  t.is(value(m, 'gw_tokens_total', { key: 'second', model: 'gpt-4o', type: 'completion' }), 5);
  t.is(value(m, 'gw_tokens_total', { key: 'second', model: 'text-embedding-3-small', type: 'prompt' }), 10);
  t.is(value(m, 'gw_tokens_total', { key: 'second', model: 'text-embedding-3-small', type: 'completion' }), 0);
  t.is(value(m, 'gw_cost_usd_total', { key: 'default', model: 'gpt-4o' }).toFixed(9), ((30 * 2.5 + 15 * 10) / 1e6).toFixed(9));
  t.is(value(m, 'gw_cost_usd_total', { key: 'second', model: 'gpt-4o' }).toFixed(9), ((10 * 2.5 + 5 * 10) / 1e6).toFixed(9));
  t.is(value(m, 'gw_cost_usd_total', { model: 'text-embedding-3-small' }), 0, 'an unpriced model adds nothing');
  // histograms: every request's total; upstream for the four upstream answers; ttfb for the stream
  t.is(value(m, 'gw_request_duration_seconds_count', { route: 'chat' }), 6);
  t.is(value(m, 'gw_request_duration_seconds_count', { route: 'embeddings' }), 1);
  t.is(value(m, 'gw_upstream_duration_seconds_count', { provider: 'up' }), 5);
  t.is(value(m, 'gw_overhead_seconds_count'), 5);
  t.is(value(m, 'gw_stream_ttfb_seconds_count', { route: 'chat' }), 1);
  t.true(value(m, 'gw_request_duration_seconds_sum') > 0);
  t.true(value(m, 'gw_upstream_duration_seconds_sum') <= value(m, 'gw_request_duration_seconds_sum'));
  t.is(value(m, 'gw_inflight_streams'), 0);
  t.is(value(m, 'gw_upstream_errors_total'), 0);
  // default process metrics, prefixed too
  t.true(m.some((s) => s.name === 'gw_process_cpu_user_seconds_total'));
  t.true(
    m.every((s) => s.name.startsWith('gw_')),
    'every name is prefixed gw_',
  );
  // a second scrape counts nothing new
  t.is(value(await scrape(gw.url), 'gw_requests_total'), 7);
});

test('metrics: an upstream 500 cured by retries, one that is not, an upstream 429 passed on: errors per attempt and retries by provider, no refusal', async (t) => {
  let n = 0;
  const ok = {
    id: 'c',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
  };
  // first request: 500, 500, 200; second: 500 ×3 (max_retries 2 → 3 attempts, then 502)
  const up = await startUpstream((_r, res) => (++n === 3 ? replyJson(res, 200, ok) : replyJson(res, 500, { error: { message: 'boom' } })));
  const gw = await startGateway(baseConfig(`[providers.a]\napi_key = "sk-a"\nbase_url = "${up.origin}/v1"\nmodels = ["m"]\n`));
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  const first = await post(gw, '/v1/chat/completions', { model: 'm', messages: HI });
  t.is(first.status, 200);
  t.is(first.headers.get('x-gw-attempts'), '3');
  await first.arrayBuffer();
  const second = await post(gw, '/v1/chat/completions', { model: 'm', messages: HI });
  t.is(second.status, 502);
  await second.arrayBuffer();
  t.is(up.received.length, 6);
  // an upstream 429 with a long retry-after is passed on at once: an upstream error, not a refusal
  up.handle((_r, res) =>
    replyJson(res, 429, { error: { message: 'slow down', type: 'rate_limit_error', code: 'rate_limit_exceeded' } }, { 'retry-after': '100' }),
  );
  const limited = await post(gw, '/v1/chat/completions', { model: 'm', messages: HI });
  t.is(limited.status, 429);
  await limited.arrayBuffer();
  const m = await scrape(gw.url);
  t.is(value(m, 'gw_upstream_errors_total', { provider: 'a', status: '429' }), 1);
  t.is(value(m, 'gw_upstream_errors_total', { provider: 'a', status: '500' }), 5);
  t.is(value(m, 'gw_upstream_retries_total', { provider: 'a' }), 4);
  t.is(value(m, 'gw_requests_total', { route: 'chat', model: 'm', provider: 'a', status: '200' }), 1);
  t.is(value(m, 'gw_requests_total', { route: 'chat', status: '502' }), 1);
  t.is(value(m, 'gw_refusals_total'), 0, 'an upstream failure is not a refusal');
});

test('metrics: an open stream shows in gw_inflight_streams; a client that leaves mid-stream is counted with 499 and the tokens it is charged', async (t) => {
  const sse = fixture('openai/openai-node/chat.stream.include-usage.sse');
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const up = await startUpstream(async (_r, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const events = sse.split('\n\n').filter((e) => e.trim());
    res.write(`${events[0]}\n\n`);
    await held;
    res.end();
  });
  const gw = await gatewayWith(t, up, '');
  const r = await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI, stream: true }, KEY);
  const reader = r.body!.getReader();
  await reader.read(); // the first chunk arrived: the stream is open
  let m = await scrape(gw.url);
  t.is(value(m, 'gw_inflight_streams'), 1);
  t.is(value(m, 'gw_stream_ttfb_seconds_count'), 1);
  t.is(value(m, 'gw_requests_total'), 0, 'counted when it ends');
  t.teardown(release);
  await reader.cancel();
  // the gateway sees the close, aborts the upstream and finishes the request
  for (let i = 0; i < 50 && value(m, 'gw_requests_total') === 0; i++) {
    await new Promise((res) => setTimeout(res, 20));
    m = await scrape(gw.url);
  }
  t.is(value(m, 'gw_inflight_streams'), 0);
  t.is(value(m, 'gw_requests_total', { route: 'chat', model: 'gpt-4o', provider: 'up', status: '499' }), 1);
  // charged for what it streamed: a role chunk, no usage yet, so the prompt estimate alone
  t.is(value(m, 'gw_tokens_total', { type: 'prompt' }), estimateTokens({ model: 'gpt-4o', messages: HI, stream: true }));
  t.is(value(m, 'gw_tokens_total', { type: 'completion' }), 0);
});

test('metrics: /metrics needs the admin token (403 for a gateway key, 401 without), answers Prometheus text; failures before admission are counted without model', async (t) => {
  const up = await openaiUpstream();
  const gw = await gatewayWith(t, up, '');
  const forKey = await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${KEY}` } });
  t.is(forKey.status, 403);
  t.is(((await forKey.json()) as any).error.code, 'admin_required');
  t.is((await fetch(`${gw.url}/metrics`)).status, 401);
  const unknown = await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI }, 'sk-not-a-key-0123456789abcdef');
  t.is(unknown.status, 401);
  const nomodel = await post(gw, '/v1/messages', { model: 'no-such-model', max_tokens: 5, messages: HI });
  t.is(nomodel.status, 404);
  const ok = await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  t.is(ok.status, 200);
  t.regex(ok.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  const m = parseMetrics(await ok.text());
  t.is(value(m, 'gw_requests_total', { route: 'chat', model: '', provider: '', status: '401' }), 1);
  t.is(value(m, 'gw_requests_total', { route: 'messages', model: '', provider: '', status: '404' }), 1);
});

test('metrics: every gateway has its own registry (two in one process do not share counts)', async (t) => {
  const up = await openaiUpstream();
  const a = await gatewayWith(t, up, '');
  const b = await startGateway(baseConfig(`[providers.up]\napi_key = "x"\nbase_url = "${up.origin}/v1"\nmodels = ["gpt-4o"]\n`));
  t.teardown(() => b.stop());
  await (await post(a, '/v1/chat/completions', { model: 'gpt-4o', messages: HI })).arrayBuffer();
  t.is(value(await scrape(a.url), 'gw_requests_total'), 1);
  t.is(value(await scrape(b.url), 'gw_requests_total'), 0);
});

test('metrics: budget refusals by reason (budget exhausted 429, unpriced model 403)', async (t) => {
  const up = await openaiUpstream();
  const gw = await gatewayWith(t, up, `${PRICING}\n[extensions.budget]\ndefault_budget = 0.0\n`);
  const exhausted = await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI });
  t.is(exhausted.status, 429);
  t.is(((await exhausted.json()) as any).error.code, 'budget_exceeded');
  const unpriced = await post(gw, '/v1/embeddings', { model: 'text-embedding-3-small', input: 'x' });
  t.is(unpriced.status, 403);
  await unpriced.arrayBuffer();
  const m = await scrape(gw.url);
  t.is(value(m, 'gw_refusals_total', { reason: 'budget' }), 1);
  t.is(value(m, 'gw_refusals_total', { reason: 'model_not_priced' }), 1);
  t.is(value(m, 'gw_requests_total', { route: 'embeddings', model: 'text-embedding-3-small', provider: '', status: '403' }), 1);
  t.is(up.received.length, 0);
});
