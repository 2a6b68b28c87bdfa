/**
 * Usage parts from the Anthropic and Gemini kinds (issue 25 item 2), native and translated,
 * non-stream and stream, on recorded payloads: Anthropic's cache reads and writes with the
 * 5-minute / 1-hour split (`cache_creation`), Gemini's thoughts and cached content. What
 * every view shows (/v1/usage, /v1/requests) and what a client of another format reads.
 *
 * Anthropic's recordings have no cache traffic and Gemini's no cached content: the usage
 * of those answers is replaced by the vendors' documented examples (Anthropic prompt
 * caching docs, "Tracking cache performance" with mixed TTLs; Gemini `UsageMetadata`
 * `cachedContentTokenCount`), the rest of each answer stays as recorded.
 */
import test, { type ExecutionContext } from 'ava';
import OpenAI from 'openai';
import { ADMIN_TOKEN, baseConfig, KEY, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { fixture, fixtureJson, type Handler, replyJson, replySse, startUpstream } from '../helpers/upstream.ts';

/** Anthropic's documented usage of a request that reads 1800 tokens from the cache and writes 248 (100 of them at the 1-hour TTL). */
const ANTHROPIC_USAGE = {
  input_tokens: 2048,
  cache_read_input_tokens: 1800,
  cache_creation_input_tokens: 248,
  output_tokens: 503,
  cache_creation: { ephemeral_5m_input_tokens: 148, ephemeral_1h_input_tokens: 100 },
};
/** prompt = input + reads + writes (docs/design.md). */
const A_PROMPT = 2048 + 1800 + 248;

async function setup(t: ExecutionContext, kind: string, model: string, handler: Handler) {
  const up = await startUpstream(handler);
  const base = kind === 'vllm' ? `${up.origin}/v1` : up.origin;
  const gw = await startGateway(
    baseConfig(
      `[providers.${kind}]\napi_key = "sk-upstream"\nbase_url = "${base}"\nmax_retries = 0\nmodels = ["${model}"]\n\n[extensions.usage]\n[extensions.request_log]\n`,
    ),
  );
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  return { gw, openai: new OpenAI({ baseURL: gw.baseURL, apiKey: KEY, maxRetries: 0 }) };
}

async function admin(gw: TestGateway, path: string): Promise<any> {
  return (await fetch(gw.url + path, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json();
}

/** The request log's entries oldest first, once `n` are there. */
async function entries(gw: TestGateway, n: number): Promise<any[]> {
  for (let i = 0; i < 50; i++) {
    const got = await admin(gw, '/v1/requests?limit=100');
    if (got.length >= n) return got.reverse();
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`fewer than ${n} request log entries`);
}

const anthropicJson = () => ({ ...fixtureJson('anthropic/vercel-ai/anthropic-text.json'), usage: ANTHROPIC_USAGE });
/** The recorded stream, its message_start usage the documented one (message_delta repeats the cache counts, as recorded). */
const anthropicSse = () =>
  fixture('anthropic/vercel-ai/anthropic-text.sse')
    .replace(/("type":"message_start".*?"usage":)\{[^}]*\{[^}]*\}[^}]*\}/, `$1${JSON.stringify({ ...ANTHROPIC_USAGE, output_tokens: 1 })}`)
    .replace(/("type":"message_delta".*?"usage":)\{[^}]*\}/, `$1${JSON.stringify({ ...ANTHROPIC_USAGE, cache_creation: undefined })}`);

test('anthropic (documented usage on recorded answers): reads, writes and their 1-hour part, native and translated, non-stream and stream', async (t) => {
  const sse = anthropicSse();
  t.true(sse.includes('"ephemeral_1h_input_tokens":100') && sse.includes('"output_tokens":503'));
  const { gw, openai } = await setup(t, 'anthropic', 'claude-sonnet-4-5', (req, res) =>
    req.json.stream ? replySse(res, sse) : replyJson(res, 200, anthropicJson()),
  );
  const messages = { model: 'claude-sonnet-4-5', max_tokens: 600, messages: [{ role: 'user', content: 'hi' }] };
  // native: the Messages client gets Anthropic's bytes
  const native = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': KEY, 'anthropic-version': '2023-06-01' },
    body: JSON.stringify(messages),
  });
  t.deepEqual(((await native.json()) as any).usage, ANTHROPIC_USAGE);
  const nativeStream = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': KEY, 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ ...messages, stream: true }),
  });
  await nativeStream.text();
  // translated: a chat client reads the parts in the common format's fields
  const chat = await openai.chat.completions.create({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'hi' }] });
  const want = {
    prompt_tokens: A_PROMPT,
    completion_tokens: 503,
    prompt_tokens_details: { cached_tokens: 1800, cache_write_tokens: 248, cache_write_1h_tokens: 100 },
  };
  t.like(chat.usage as any, want);
  let streamed: any;
  for await (const c of await openai.chat.completions.create({
    model: 'claude-sonnet-4-5',
    messages: [{ role: 'user', content: 'hi' }],
    stream: true,
    stream_options: { include_usage: true },
  })) {
    if (c.usage) streamed = c.usage;
  }
  t.like(streamed, want);
  // a Responses client: its own fields
  const r = await fetch(`${gw.url}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
    body: JSON.stringify({ model: 'claude-sonnet-4-5', input: 'hi' }),
  });
  t.like(((await r.json()) as any).usage, {
    input_tokens: A_PROMPT,
    input_tokens_details: { cached_tokens: 1800, cache_write_tokens: 248, cache_write_1h_tokens: 100 },
    output_tokens: 503,
  });

  const [u] = await admin(gw, '/v1/usage');
  t.like(u, { prompt_tokens: 5 * A_PROMPT, cached_tokens: 5 * 1800, cache_write_tokens: 5 * 248, completion_tokens: 5 * 503, requests: 5 });
  t.is(u.cache_hit_rate, Math.round((1800 / A_PROMPT) * 1e4) / 1e4);
  for (const e of await entries(gw, 5))
    t.like(e, { prompt_tokens: A_PROMPT, cached_tokens: 1800, cache_write_tokens: 248, completion_tokens: 503 }, `${e.route} stream=${e.stream}`);
});

test('a Messages client on a translated kind gets cache writes as cache_creation_input_tokens with the TTL split', async (t) => {
  const usage = {
    prompt_tokens: 1000,
    completion_tokens: 20,
    total_tokens: 1020,
    prompt_tokens_details: { cached_tokens: 600, cache_write_tokens: 300, cache_write_1h_tokens: 120 },
  };
  // an upstream that speaks the common format with gw's usage fields (another gw, for one)
  const answer = { ...fixtureJson('openai/spec-examples/chat.default.response.json'), usage };
  const { gw } = await setup(t, 'vllm', 'gpt-4o', (_r, res) => replyJson(res, 200, answer));
  const r = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': KEY, 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model: 'gpt-4o', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }),
  });
  t.deepEqual(((await r.json()) as any).usage, {
    input_tokens: 100,
    cache_creation_input_tokens: 300,
    cache_read_input_tokens: 600,
    cache_creation: { ephemeral_5m_input_tokens: 180, ephemeral_1h_input_tokens: 120 },
    output_tokens: 20,
  });
});

test('gemini (recorded thoughts; documented cachedContentTokenCount): reasoning = thoughts, completion = candidates + thoughts, cached from the cached content, native and translated, non-stream and stream', async (t) => {
  const json = fixtureJson('gemini/vercel-ai/google-reasoning.json');
  json.usageMetadata = { ...json.usageMetadata, promptTokenCount: 4009, cachedContentTokenCount: 4000 };
  const sse = fixture('gemini/vercel-ai/google-reasoning.sse');
  const { gw, openai } = await setup(t, 'gemini', 'gemini-3-pro-preview', (req, res) =>
    req.url.includes('stream') ? replySse(res, sse) : replyJson(res, 200, json),
  );
  const one = await openai.chat.completions.create({ model: 'gemini-3-pro-preview', messages: [{ role: 'user', content: 'hi' }] });
  t.like(one.usage as any, {
    prompt_tokens: 4009,
    completion_tokens: 29 + 282,
    prompt_tokens_details: { cached_tokens: 4000 },
    completion_tokens_details: { reasoning_tokens: 282 },
  });
  for await (const _ of await openai.chat.completions.create({ model: 'gemini-3-pro-preview', messages: [{ role: 'user', content: 'hi' }], stream: true })) {
    /* drain */
  }
  const native = await fetch(`${gw.url}/v1beta/models/gemini-3-pro-preview:generateContent`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': KEY },
    body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
  });
  t.deepEqual(((await native.json()) as any).usageMetadata, json.usageMetadata);
  const log = await entries(gw, 3);
  t.like(log[0], { prompt_tokens: 4009, cached_tokens: 4000, completion_tokens: 311, reasoning_tokens: 282 });
  t.like(log[1], { stream: true, prompt_tokens: 9, cached_tokens: 0, completion_tokens: 29 + 256, reasoning_tokens: 256 });
  t.like(log[2], { route: 'gemini', prompt_tokens: 4009, cached_tokens: 4000, reasoning_tokens: 282 });
  const [u] = await admin(gw, '/v1/usage');
  t.like(u, { prompt_tokens: 4009 * 2 + 9, cached_tokens: 8000, reasoning_tokens: 282 * 2 + 256 });
});
