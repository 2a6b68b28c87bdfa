/**
 * Usage carries its parts end to end (issue 25 item 2): recorded vendor payloads with cache
 * reads, cache writes and reasoning tokens, non-stream and stream, reach `/v1/usage`
 * (lifetime and series, with the cache hit rate), `/v1/requests` entries and `/metrics`
 * (the `type` label), and a client of another format reads them in its own fields.
 */
import test, { type ExecutionContext } from 'ava';
import OpenAI from 'openai';
import { ADMIN_TOKEN, baseConfig, KEY, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { fixture, fixtureJson, replyJson, replySse, startUpstream, toSse, type Handler } from '../helpers/upstream.ts';
import { scrape, value } from './metrics-helpers.ts';

const ZHIPU = 'glm-4.7-flash';
const ZDIR = 'zhipu/fantasy-cassettes/glm-4.7-flash';
/** Recorded: prompt 15 (3 cached), completion 249 (239 reasoning). */
const zhipuJson = () => fixtureJson<Array<{ response: { body: any } }>>(`${ZDIR}.simple.transcript.json`)[0]!.response.body;
/** Recorded: prompt 15 (14 cached), completion 734 (708 reasoning), usage on the finish chunk. */
const zhipuSse = () => fixture(`${ZDIR}.simple_streaming.0.response.sse`);
const HI = [{ role: 'user' as const, content: 'hi' }];

async function setup(t: ExecutionContext, handler: Handler, provider: string, models: string[]) {
  const up = await startUpstream(handler);
  const base = `${up.origin}${{ zhipu: '/api/paas/v4', dashscope: '/compatible-mode/v1', azure: '/' }[provider] ?? '/v1'}`;
  const gw = await startGateway(
    baseConfig(
      `[providers.${provider}]\napi_key = "sk-upstream"\nbase_url = "${base}"\nmax_retries = 0\nmodels = ${JSON.stringify(models)}\n\n[extensions.usage]\n[extensions.request_log]\n`,
    ),
  );
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  return { up, gw, client: new OpenAI({ baseURL: gw.baseURL, apiKey: KEY, maxRetries: 0 }) };
}

async function admin<T = any>(gw: TestGateway, path: string): Promise<T> {
  const r = await fetch(gw.url + path, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  return (await r.json()) as T;
}

async function post(gw: TestGateway, path: string, body: unknown, headers: Record<string, string> = {}): Promise<any> {
  const r = await fetch(gw.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}`, ...headers },
    body: JSON.stringify(body),
  });
  return r.json();
}

/** The request log's entries, oldest first, once `n` are there (the log is written at the request's end). */
async function entries(gw: TestGateway, n: number): Promise<any[]> {
  for (let i = 0; i < 50; i++) {
    const got = await admin<any[]>(gw, '/v1/requests?limit=100');
    if (got.length >= n) return got.reverse();
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`fewer than ${n} request log entries`);
}

test('zhipu (recorded): cache reads and reasoning, non-stream and stream, in /v1/usage, its series, /v1/requests and /metrics', async (t) => {
  let n = 0;
  const { gw, client } = await setup(t, (_r, res) => (n++ === 0 ? replyJson(res, 200, zhipuJson()) : replySse(res, zhipuSse())), 'zhipu', [ZHIPU]);
  const one = await client.chat.completions.create({ model: ZHIPU, messages: HI });
  t.like(one.usage, { prompt_tokens: 15, prompt_tokens_details: { cached_tokens: 3 }, completion_tokens_details: { reasoning_tokens: 239 } });
  for await (const _ of await client.chat.completions.create({ model: ZHIPU, messages: HI, stream: true })) {
    /* drain */
  }
  const [u] = await admin<any[]>(gw, '/v1/usage');
  t.like(u, {
    key: 'default',
    model: ZHIPU,
    prompt_tokens: 30,
    completion_tokens: 983,
    cached_tokens: 17,
    cache_write_tokens: 0,
    reasoning_tokens: 947,
    requests: 2,
  });
  t.is(u.cache_hit_rate, Math.round((17 / 30) * 1e4) / 1e4);
  const series = await admin<any[]>(gw, '/v1/usage?bucket=day&group_by=model');
  t.like(series[0], { model: ZHIPU, prompt_tokens: 30, cached_tokens: 17, cache_write_tokens: 0, reasoning_tokens: 947, cache_hit_rate: u.cache_hit_rate });
  const log = await entries(gw, 2);
  t.like(log[0], { stream: false, prompt_tokens: 15, cached_tokens: 3, cache_write_tokens: 0, completion_tokens: 249, reasoning_tokens: 239 });
  t.like(log[1], { stream: true, prompt_tokens: 15, cached_tokens: 14, cache_write_tokens: 0, completion_tokens: 734, reasoning_tokens: 708 });
  const m = await scrape(gw.url);
  const tokens = (type: string) => value(m, 'gw_tokens_total', { key: 'default', model: ZHIPU, type });
  t.deepEqual(['prompt', 'completion', 'input', 'cached', 'cache_write', 'output', 'reasoning'].map(tokens), [30, 983, 30 - 17, 17, 0, 983 - 947, 947]);
});

test('dashscope (documented explicit cache): writes become cache_write_tokens for the client and every view; reads count as cached', async (t) => {
  const [write, hit] = fixtureJson<any[]>('dashscope/docs/explicit-cache.usage.json');
  const answer = fixtureJson('dashscope/vercel-ai/alibaba-text.json');
  const stream = fixture('dashscope/vercel-ai/alibaba-text.sse').replace(/"usage":\{"prompt_tokens":18[^\n]*?\}\},/, `"usage":${JSON.stringify(hit)},`);
  t.true(stream.includes('"cached_tokens":2048'), 'the recorded stream carries the documented usage');
  let n = 0;
  const { gw, client } = await setup(t, (_r, res) => (n++ === 0 ? replyJson(res, 200, { ...answer, usage: write }) : replySse(res, stream)), 'dashscope', [
    'qwen3-max',
  ]);
  const one = await client.chat.completions.create({ model: 'qwen3-max', messages: HI });
  // DashScope's own fields stay; the common one is added beside them
  t.like(one.usage as any, {
    prompt_tokens: 2059,
    prompt_tokens_details: { cache_creation_input_tokens: 2048, cache_type: 'ephemeral', cache_write_tokens: 2048 },
  });
  let usage: any;
  for await (const c of await client.chat.completions.create({ model: 'qwen3-max', messages: HI, stream: true, stream_options: { include_usage: true } })) {
    if (c.usage) usage = c.usage;
  }
  t.deepEqual(usage, hit, 'a usage without a cache write passes as it came');
  const [u] = await admin<any[]>(gw, '/v1/usage');
  t.like(u, {
    prompt_tokens: 4118,
    cached_tokens: 2048,
    cache_write_tokens: 2048,
    reasoning_tokens: 320,
    cache_hit_rate: Math.round((2048 / 4118) * 1e4) / 1e4,
  });
  const log = await entries(gw, 2);
  t.like(log[0], { cached_tokens: 0, cache_write_tokens: 2048, reasoning_tokens: 170 });
  t.like(log[1], { cached_tokens: 2048, cache_write_tokens: 0, reasoning_tokens: 150 });
  const m = await scrape(gw.url);
  t.is(value(m, 'gw_tokens_total', { model: 'qwen3-max', type: 'cache_write' }), 2048);
  t.is(value(m, 'gw_tokens_total', { model: 'qwen3-max', type: 'input' }), 4118 - 2048 - 2048);
});

test('a client of another format reads the parts in its own fields (Messages, Responses, Gemini translated to an OpenAI-compatible upstream answering the recorded zhipu body)', async (t) => {
  // a self-defined kind: every format is translated to chat completions (zhipu has a native Messages origin)
  const { gw } = await setup(t, (_r, res) => replyJson(res, 200, zhipuJson()), 'vllm', [ZHIPU]);
  const m = await post(gw, '/v1/messages', { model: ZHIPU, max_tokens: 300, messages: HI }, { 'anthropic-version': '2023-06-01' });
  // Messages counts cache reads apart from input_tokens; thinking stays inside output_tokens
  t.like(m.usage, { input_tokens: 12, cache_read_input_tokens: 3, cache_creation_input_tokens: 0, output_tokens: 249 });
  const r = await post(gw, '/v1/responses', { model: ZHIPU, input: 'hi' });
  t.like(r.usage, { input_tokens: 15, input_tokens_details: { cached_tokens: 3 }, output_tokens: 249, output_tokens_details: { reasoning_tokens: 239 } });
  const g = await post(gw, `/v1beta/models/${ZHIPU}:generateContent`, { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }, { 'x-goog-api-key': KEY });
  // Gemini counts thoughts apart from candidates
  t.like(g.usageMetadata, { promptTokenCount: 15, cachedContentTokenCount: 3, candidatesTokenCount: 10, thoughtsTokenCount: 239 });
});

test('a stream whose upstream reports usage on a content chunk keeps its parts (toSse built from the recorded finish chunk)', async (t) => {
  const usage = {
    prompt_tokens: 40,
    completion_tokens: 9,
    total_tokens: 49,
    prompt_tokens_details: { cached_tokens: 32 },
    completion_tokens_details: { reasoning_tokens: 4 },
  };
  const sse = toSse([
    { id: 'c', object: 'chat.completion.chunk', created: 1, model: ZHIPU, choices: [{ index: 0, delta: { content: 'ok' }, finish_reason: 'stop' }], usage },
  ]);
  const { gw, client } = await setup(t, (_r, res) => replySse(res, sse), 'zhipu', [ZHIPU]);
  for await (const _ of await client.chat.completions.create({ model: ZHIPU, messages: HI, stream: true })) {
    /* drain */
  }
  t.like((await admin<any[]>(gw, '/v1/usage'))[0], { cached_tokens: 32, reasoning_tokens: 4, cache_hit_rate: 0.8 });
});

test('openai (the spec’s Responses example, native) and azure (recorded chat stream): reasoning tokens in every view', async (t) => {
  const response = fixtureJson('responses/spec-examples/reasoning.response.json');
  const openai = await setup(t, (_r, res) => replyJson(res, 200, response), 'openai', ['o1']);
  t.is((await post(openai.gw, '/v1/responses', { model: 'o1', input: 'hi' })).usage.output_tokens_details.reasoning_tokens, 832);
  t.like((await admin<any[]>(openai.gw, '/v1/usage'))[0], { prompt_tokens: 81, completion_tokens: 1035, reasoning_tokens: 832, cached_tokens: 0 });
  t.like((await entries(openai.gw, 1))[0], { route: 'responses', reasoning_tokens: 832 });

  const azure = await setup(t, (_r, res) => replySse(res, fixture('azure/vercel-ai/azure-model-router.1.sse')), 'azure', ['model-router']);
  for await (const _ of await azure.client.chat.completions.create({ model: 'model-router', messages: HI, stream: true })) {
    /* drain */
  }
  t.like((await admin<any[]>(azure.gw, '/v1/usage'))[0], { prompt_tokens: 15, completion_tokens: 78, reasoning_tokens: 64 });
});
