/**
 * The Gemini API in, another kind out: @google/genai (baseUrl = gw; 3.x calls /v1/…) and
 * raw fetches (/v1beta/…, both stream framings) against gw, with mock upstreams replaying
 * recorded OpenAI and Anthropic payloads. Usage, budget, rate limit, cache, metrics,
 * fallbacks, aliases, errors in Google's shape, and the key never forwarded nor logged.
 */
import { ApiError, FinishReason, FunctionCallingConfigMode, GoogleGenAI, type Content } from '@google/genai';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import test, { type ExecutionContext } from 'ava';
import { ADMIN_TOKEN, baseConfig, KEY, KEY2, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { fixture, fixtureJson, replyJson, replySse, startUpstream, type Handler, type MockUpstream } from '../helpers/upstream.ts';
import { scrape, value } from './metrics-helpers.ts';

const CHAT = fixtureJson('openai/spec-examples/chat.default.response.json');
const CALL = fixtureJson('openai/spec-examples/chat.functions.response.json');
const TEXT_SSE = fixture('openai/openai-node/chat.stream.include-usage.sse');
const CALL_SSE = fixture('openai/vercel-ai/chat.stream.tool-call-deltas.sse');
const EMB = fixtureJson('openai/openai-node/embeddings-float-response.json');

/** The text a recorded OpenAI stream spells out. */
function streamedText(sse: string): string {
  return sse
    .split('\n\n')
    .filter((l) => l.startsWith('data: {'))
    .map((l) => JSON.parse(l.slice(6)).choices?.[0]?.delta?.content ?? '')
    .join('');
}

/** A tool message in a common-format request answers a call: the next turn. */
const answersCall = (json: any) => (json?.messages ?? []).some((m: any) => m.role === 'tool');

/** The OpenAI-format upstream: calls or text, streamed or not, and embeddings, from recordings. */
const openaiHandler: Handler = (r, res) => {
  if (r.url.endsWith('/embeddings')) return replyJson(res, 200, EMB);
  const tools = r.json?.tools !== undefined && !answersCall(r.json);
  if (r.json?.stream) return replySse(res, tools ? CALL_SSE : TEXT_SSE);
  return replyJson(res, 200, tools ? CALL : CHAT);
};

const OPENAI_MODELS = ['gpt-4o', 'org/model-1.5-x', 'text-embedding-3-small'];

async function setup(
  t: ExecutionContext,
  opts: { handler?: Handler; extra?: string; level?: 'warn' | 'debug' | 'trace' } = {},
): Promise<{ gw: TestGateway; up: MockUpstream; ai: GoogleGenAI }> {
  const up = await startUpstream(opts.handler ?? openaiHandler);
  const gw = await startGateway(
    baseConfig(
      `[providers.openai]\napi_key = "sk-upstream-openai"\nbase_url = "${up.origin}/v1"\nmax_retries = 0\nmodels = ${JSON.stringify(OPENAI_MODELS)}\n${opts.extra ?? ''}`,
    ),
    { level: opts.level },
  );
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  return { gw, up, ai: new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: gw.url } }) };
}

/** POST a Gemini body to `gw` with the key in `?key=` (or as told). */
function gpost(gw: TestGateway, path: string, body: unknown, headers: Record<string, string> = { 'x-goog-api-key': KEY }): Promise<Response> {
  return fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const HI = { contents: [{ role: 'user', parts: [{ text: 'Hello' }] }] };

const weatherTool = {
  functionDeclarations: [
    {
      name: 'get_current_weather',
      description: 'Weather in a city',
      parametersJsonSchema: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
    },
  ],
};

test('openai kind: generateContent with system, generation config and usage; Gemini-only fields dropped with a debug log; the gateway key never reaches the upstream', async (t) => {
  const { gw, up, ai } = await setup(t, { level: 'debug' });
  const r = await ai.models.generateContent({
    model: 'gpt-4o',
    contents: 'Hello',
    config: {
      systemInstruction: 'Be brief.',
      maxOutputTokens: 64,
      temperature: 0.2,
      topP: 0.9,
      stopSequences: ['END'],
      safetySettings: [],
      thinkingConfig: { thinkingBudget: 128 },
    },
  });
  t.is(r.text, CHAT.choices[0].message.content);
  t.is(r.candidates![0]!.finishReason, FinishReason.STOP);
  t.deepEqual(r.usageMetadata, {
    promptTokenCount: CHAT.usage.prompt_tokens,
    candidatesTokenCount: CHAT.usage.completion_tokens,
    totalTokenCount: CHAT.usage.total_tokens,
  });
  t.is(r.sdkHttpResponse?.headers?.['x-gw-provider'], 'openai');
  const sent = up.received[0]!;
  t.is(sent.url, '/v1/chat/completions');
  t.is(sent.headers.authorization, 'Bearer sk-upstream-openai');
  t.is(sent.headers['x-goog-api-key'], undefined);
  t.false(JSON.stringify(sent).includes(KEY));
  t.deepEqual(sent.json, {
    model: 'gpt-4o',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hello' },
    ],
    max_tokens: 64,
    temperature: 0.2,
    top_p: 0.9,
    stop: ['END'],
  });
  const dropped = gw.logs.map((l) => JSON.parse(l)).find((l) => l.msg === 'Gemini fields dropped in translation');
  t.is(dropped.provider, 'openai');
  t.true(dropped.warnings.some((w: string) => w.startsWith('safetySettings dropped')));
  t.true(dropped.warnings.some((w: string) => w.startsWith('thinkingConfig.thinkingBudget dropped')));
});

test('openai kind: generateContentStream → text as it comes, usage on the last chunk', async (t) => {
  const { up, ai } = await setup(t);
  const chunks = [];
  for await (const c of await ai.models.generateContentStream({ model: 'gpt-4o', contents: 'Hello' })) chunks.push(c);
  t.true(chunks.length > 2);
  t.is(chunks.map((c) => c.text ?? '').join(''), streamedText(TEXT_SSE));
  const last = chunks.at(-1)!;
  t.is(last.candidates![0]!.finishReason, FinishReason.STOP);
  t.truthy(last.usageMetadata?.totalTokenCount);
  t.like(up.received[0]!.json, { model: 'gpt-4o', stream: true, stream_options: { include_usage: true } });
});

test('openai kind: a function call round trip (the upstream call id comes back in functionResponse.id and pairs the tool message)', async (t) => {
  const { up, ai } = await setup(t);
  const config = { tools: [weatherTool], toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.AUTO } } };
  const first = await ai.models.generateContent({ model: 'gpt-4o', contents: 'Weather in Boston?', config });
  const call = first.functionCalls![0]!;
  t.deepEqual(call, { id: 'call_abc123', name: 'get_current_weather', args: { location: 'Boston, MA' } });
  t.deepEqual(up.received[0]!.json.tools, [
    {
      type: 'function',
      function: { name: 'get_current_weather', description: 'Weather in a city', parameters: weatherTool.functionDeclarations[0]!.parametersJsonSchema },
    },
  ]);
  t.is(up.received[0]!.json.tool_choice, 'auto');
  const contents: Content[] = [
    { role: 'user', parts: [{ text: 'Weather in Boston?' }] },
    first.candidates![0]!.content!,
    { role: 'user', parts: [{ functionResponse: { id: call.id, name: call.name!, response: { output: '22 C, sunny' } } }] },
  ];
  const second = await ai.models.generateContent({ model: 'gpt-4o', contents, config });
  t.is(second.text, CHAT.choices[0].message.content);
  t.deepEqual(up.received[1]!.json.messages.slice(1), [
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_abc123', type: 'function', function: { name: 'get_current_weather', arguments: '{"location":"Boston, MA"}' } }],
    },
    { role: 'tool', tool_call_id: 'call_abc123', content: '22 C, sunny' },
  ]);
});

test('openai kind: a streamed tool call arrives whole, with the upstream id', async (t) => {
  const { ai } = await setup(t);
  const calls = [];
  for await (const c of await ai.models.generateContentStream({ model: 'gpt-4o', contents: 'Use the tool', config: { tools: [weatherTool] } }))
    calls.push(...(c.functionCalls ?? []));
  t.deepEqual(calls, [{ id: 'call_O17Uplv4lJvD6DVdIvFFeRMw', name: 'test-tool', args: { value: 'Sparkle Day' } }]);
});

test('openai kind: embedContent → the recorded vectors; the upstream got the text', async (t) => {
  const { up, ai } = await setup(t);
  const r = await ai.models.embedContent({ model: 'text-embedding-3-small', contents: ['first text', 'second text'] });
  t.deepEqual(
    r.embeddings!.map((e) => e.values),
    EMB.data.map((d: any) => d.embedding),
  );
  t.like(up.received[0]!.json, { model: 'text-embedding-3-small', input: ['first text', 'second text'], encoding_format: 'float' });
  const one = await gpost(await setupGw(t, up), '/v1beta/models/text-embedding-3-small:embedContent', { content: { parts: [{ text: 'a' }, { text: 'b' }] } });
  t.is(one.status, 200);
  t.deepEqual(((await one.json()) as any).embedding.values, EMB.data[0].embedding);
  t.like(up.received[1]!.json, { input: 'a\nb' });
});

/** A second gateway on the same upstream (for raw calls next to the SDK's). */
async function setupGw(t: ExecutionContext, up: MockUpstream): Promise<TestGateway> {
  const gw = await startGateway(
    baseConfig(
      `[providers.openai]\napi_key = "sk-upstream-openai"\nbase_url = "${up.origin}/v1"\nmax_retries = 0\nmodels = ${JSON.stringify(OPENAI_MODELS)}\n`,
    ),
  );
  t.teardown(() => gw.stop());
  return gw;
}

test('anthropic kind: generateContent, stream, a function call round trip; embedContent is 400 embeddings_unsupported in Google shape', async (t) => {
  const toolUse = fixtureJson('anthropic/vercel-ai/anthropic-json-tool.1.json');
  const up = await startUpstream((r, res) => {
    const last = r.json.messages.at(-1);
    const answering = Array.isArray(last.content) && last.content.some((b: any) => b.type === 'tool_result');
    if (r.json.stream) return replySse(res, fixture('anthropic/anthropic-sdk-typescript/basic.sse'));
    replyJson(res, 200, r.json.tools && !answering ? toolUse : fixture('anthropic/vercel-ai/anthropic-text.json'));
  });
  const gw = await startGateway(
    baseConfig(`[providers.anthropic]\napi_key = "sk-ant-upstream"\nbase_url = "${up.origin}"\nmax_retries = 0\nmodels = ["claude-haiku-4-5"]\n`),
  );
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  const ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: gw.url } });

  const text = await ai.models.generateContent({ model: 'claude-haiku-4-5', contents: 'Hi', config: { systemInstruction: 'Be kind.', maxOutputTokens: 100 } });
  t.is(text.text, fixtureJson('anthropic/vercel-ai/anthropic-text.json').content[0].text);
  t.is(up.received[0]!.url, '/v1/messages');
  t.is(up.received[0]!.headers['x-api-key'], 'sk-ant-upstream');
  t.like(up.received[0]!.json, { model: 'claude-haiku-4-5', max_tokens: 100, system: 'Be kind.' });
  t.is(text.usageMetadata!.promptTokenCount, fixtureJson('anthropic/vercel-ai/anthropic-text.json').usage.input_tokens);

  let streamed = '';
  for await (const c of await ai.models.generateContentStream({ model: 'claude-haiku-4-5', contents: 'Hi' })) streamed += c.text ?? '';
  t.is(streamed, 'Hello there!');

  const tool = {
    functionDeclarations: [
      { name: 'json', description: 'Answer as JSON', parametersJsonSchema: { type: 'object', properties: { elements: { type: 'array' } } } },
    ],
  };
  const first = await ai.models.generateContent({ model: 'claude-haiku-4-5', contents: 'Weather?', config: { tools: [tool] } });
  const call = first.functionCalls![0]!;
  t.is(call.id, 'toolu_01Q9ExVZnzZj7E2QQYHYtNUa');
  t.deepEqual(call.args, toolUse.content[0].input);
  const contents: Content[] = [
    { role: 'user', parts: [{ text: 'Weather?' }] },
    first.candidates![0]!.content!,
    { role: 'user', parts: [{ functionResponse: { id: call.id, name: 'json', response: { output: 'shown' } } }] },
  ];
  await ai.models.generateContent({ model: 'claude-haiku-4-5', contents, config: { tools: [tool] } });
  const sent = up.received.at(-1)!.json;
  t.like(sent.messages[1].content[0], { type: 'tool_use', id: 'toolu_01Q9ExVZnzZj7E2QQYHYtNUa', name: 'json' });
  t.like(sent.messages[2].content[0], { type: 'tool_result', tool_use_id: 'toolu_01Q9ExVZnzZj7E2QQYHYtNUa', content: 'shown' });

  const calls = up.received.length;
  const err = await t.throwsAsync(ai.models.embedContent({ model: 'claude-haiku-4-5', contents: 'x' }), { instanceOf: ApiError });
  t.is(err.status, 400);
  const body = JSON.parse(err.message);
  t.like(body.error, { code: 400, status: 'INVALID_ARGUMENT' });
  t.regex(body.error.message, /no embeddings endpoint/);
  t.is(body.error.details[0].reason, 'embeddings_unsupported');
  t.is(up.received.length, calls, 'no upstream call');
});

test('/v1beta stream without alt: one JSON array of responses; with alt=sse: SSE events', async (t) => {
  const { gw } = await setup(t);
  const arr = await gpost(gw, '/v1beta/models/gpt-4o:streamGenerateContent', HI);
  t.is(arr.status, 200);
  t.regex(arr.headers.get('content-type')!, /^application\/json/);
  const list = JSON.parse(await arr.text()) as any[];
  t.true(Array.isArray(list) && list.length > 2);
  t.is(list.map((r) => r.candidates[0].content.parts[0].text).join(''), streamedText(TEXT_SSE));
  t.is(list.at(-1).candidates[0].finishReason, FinishReason.STOP);
  t.truthy(list.at(-1).usageMetadata);

  const sse = await gpost(gw, '/v1beta/models/gpt-4o:streamGenerateContent?alt=sse', HI);
  t.regex(sse.headers.get('content-type')!, /^text\/event-stream/);
  const events = (await sse.text()).split('\r\n\r\n').filter((e) => e.startsWith('data: '));
  t.deepEqual(
    events.map((e) => JSON.parse(e.slice(6))),
    list,
  );
});

test("a stream failing after its first byte: Google's error as the next SSE event (ApiError in @google/genai), or as the JSON array's last element", async (t) => {
  const head = TEXT_SSE.split('\n\n').slice(0, 3).join('\n\n');
  const { gw, ai } = await setup(t, { handler: (_r, res) => replySse(res, `${head}\n\n`, { cutAfter: 3 }) });
  const seen: string[] = [];
  const err = await t.throwsAsync(
    async () => {
      for await (const c of await ai.models.generateContentStream({ model: 'gpt-4o', contents: 'Hi' })) seen.push(c.text ?? '');
    },
    { instanceOf: ApiError },
  );
  t.true(seen.length > 0, 'text arrived before the failure');
  t.is(err.status, 502);

  const arr = await gpost(gw, '/v1beta/models/gpt-4o:streamGenerateContent', HI);
  t.is(arr.status, 200);
  const list = JSON.parse(await arr.text()) as any[];
  t.truthy(list[0].candidates);
  t.like(list.at(-1).error, { code: 502, status: 'UNAVAILABLE' });
  t.regex(list.at(-1).error.message, /provider openai/);
});

test('model ids with /, . and - (raw as @google/genai sends them, or %2F-encoded); aliases resolve to the canonical model', async (t) => {
  const { up, gw, ai } = await setup(t, { extra: '[aliases]\nfast = "org/model-1.5-x"\n' });
  const a = await ai.models.generateContent({ model: 'org/model-1.5-x', contents: 'Hi' });
  t.is(a.text, CHAT.choices[0].message.content);
  const b = await gpost(gw, '/v1beta/models/org%2Fmodel-1.5-x:generateContent', HI);
  t.is(b.status, 200);
  const c = await ai.models.generateContent({ model: 'fast', contents: 'Hi' });
  t.is(c.text, CHAT.choices[0].message.content);
  t.deepEqual(
    up.received.map((r) => r.json.model),
    ['org/model-1.5-x', 'org/model-1.5-x', 'org/model-1.5-x'],
  );
  const got = await ai.models.get({ model: 'org/model-1.5-x' });
  t.is(got.name, 'models/org/model-1.5-x');
  const v1beta = await fetch(`${gw.url}/v1beta/models/org/model-1.5-x`, { headers: { 'x-goog-api-key': KEY } });
  t.is(((await v1beta.json()) as any).name, 'models/org/model-1.5-x');
  const openaiClient = await fetch(`${gw.url}/v1/models/org/model-1.5-x`, { headers: { authorization: `Bearer ${KEY}` } });
  t.is(openaiClient.status, 404, 'the Gemini variant answers only Gemini clients');
});

test('fallbacks and x-gw-provider: a failing provider falls back to the [fallbacks] model, whose provider answers', async (t) => {
  const down = await startUpstream((_r, res) => replyJson(res, 500, { error: { message: 'down' } }));
  const { up, ai } = await setup(t, {
    extra: `[providers.down]\napi_key = "sk-down"\nbase_url = "${down.origin}/v1"\nmax_retries = 0\nmodels = ["big"]\n[fallbacks]\nbig = ["gpt-4o"]\n`,
  });
  t.teardown(() => down.close());
  const r = await ai.models.generateContent({ model: 'big', contents: 'Hi' });
  t.is(r.text, CHAT.choices[0].message.content);
  t.is(r.sdkHttpResponse?.headers?.['x-gw-provider'], 'openai');
  t.is(r.sdkHttpResponse?.headers?.['x-gw-attempts'], '2');
  t.is(down.received.length, 1);
  t.is(up.received[0]!.json.model, 'gpt-4o');
});

test("errors in Google's shape: unknown model (404), invalid body naming the field (400), missing or unknown key (401), unknown method (404)", async (t) => {
  const { gw, ai } = await setup(t);
  const nf = await t.throwsAsync(ai.models.generateContent({ model: 'gpt-4', contents: 'Hi' }), { instanceOf: ApiError });
  t.is(nf.status, 404);
  const nfBody = JSON.parse(nf.message).error;
  t.like(nfBody, { code: 404, status: 'NOT_FOUND' });
  t.regex(nfBody.message, /did you mean 'gpt-4o'/);

  const bad = await gpost(gw, '/v1beta/models/gpt-4o:generateContent', { contents: [{ role: 'user', parts: [{ inlineData: { mimeType: 'image/png' } }] }] });
  t.is(bad.status, 400);
  const badBody = (await bad.json()) as any;
  t.like(badBody.error, { code: 400, status: 'INVALID_ARGUMENT' });
  t.regex(badBody.error.message, /^contents\[0\]\.parts\[0\]\.inlineData/);
  t.is(badBody.error.details[0].metadata.param.startsWith('contents[0].parts[0].inlineData'), true);

  const noKey = await gpost(gw, '/v1beta/models/gpt-4o:generateContent', HI, {});
  t.is(noKey.status, 401);
  const noKeyBody = (await noKey.json()) as any;
  t.like(noKeyBody.error, { code: 401, status: 'UNAUTHENTICATED' });
  t.regex(noKeyBody.error.message, /x-goog-api-key: <key> or \?key=<key> or Authorization: Bearer <key>/);
  const wrong = await gpost(gw, '/v1beta/models/gpt-4o:generateContent?key=sk-wrong', HI, {});
  t.is(wrong.status, 401);

  const unknown = await gpost(gw, '/v1beta/models/gpt-4o:generateAnswer', HI);
  t.is(unknown.status, 404);
  t.like(((await unknown.json()) as any).error, { code: 404, status: 'NOT_FOUND' });
});

test('an upstream 429 keeps its status and retry-after, as RESOURCE_EXHAUSTED with RetryInfo', async (t) => {
  const { ai } = await setup(t, {
    handler: (_r, res) =>
      replyJson(res, 429, { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } }, { 'retry-after': '20' }),
  });
  const err = await t.throwsAsync(ai.models.generateContent({ model: 'gpt-4o', contents: 'Hi' }), { instanceOf: ApiError });
  t.is(err.status, 429);
  const body = JSON.parse(err.message).error;
  t.like(body, { code: 429, status: 'RESOURCE_EXHAUSTED' });
  t.deepEqual(body.details.at(-1), { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '20s' });
});

test("?key= authenticates and is removed: never forwarded, never in the log lines at trace (-vvv) nor in the logging extension's", async (t) => {
  const { gw, up } = await setup(t, { level: 'trace', extra: '[extensions.logging]\nlevel = "trace"\n' });
  const r = await gpost(gw, `/v1beta/models/gpt-4o:streamGenerateContent?alt=sse&key=${KEY}`, HI, {});
  t.is(r.status, 200);
  await r.text();
  const bearer = await gpost(gw, '/v1beta/models/gpt-4o:generateContent', HI, { authorization: `Bearer ${KEY2}` });
  t.is(bearer.status, 200);
  t.is(up.received.length, 2);
  for (const x of up.received) t.false(JSON.stringify(x).includes(KEY) || JSON.stringify(x).includes(KEY2));
  t.true(
    gw.logs.some((l) => l.includes('"request body"')),
    'trace logging was on',
  );
  t.true(gw.logs.some((l) => l.includes('"request content"')));
  const completed = gw.logs.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request completed');
  t.deepEqual(
    completed.map((l) => [l.route, l.model, l.provider, l.key_name, l.status, l.stream]),
    [
      ['gemini', 'gpt-4o', 'openai', 'default', 200, true],
      ['gemini', 'gpt-4o', 'openai', 'second', 200, false],
    ],
  );
  t.false(gw.logs.some((l) => l.includes(KEY) || l.includes(KEY2)));
});

test('countTokens on a kind that cannot count: an estimate, said so', async (t) => {
  const { up, ai } = await setup(t);
  const r = await ai.models.countTokens({ model: 'gpt-4o', contents: 'Hello there, how are you?' });
  t.is(r.totalTokens, 3 + Math.ceil(Buffer.byteLength('Hello there, how are you?') / 4));
  t.is(r.sdkHttpResponse?.headers?.['x-gw-estimated'], 'true');
  t.is(up.received.length, 0);
});

test("models list and get in Gemini's shape on /v1 and /v1beta; OpenAI and Anthropic clients still get theirs on /v1/models", async (t) => {
  const { gw, ai } = await setup(t, { extra: '[aliases]\nfast = "gpt-4o"\n' });
  const names = [];
  for await (const m of await ai.models.list()) names.push(m.name);
  t.deepEqual(
    names,
    [...OPENAI_MODELS, 'fast'].map((id) => `models/${id}`),
  );
  const m = await ai.models.get({ model: 'text-embedding-3-small' });
  t.deepEqual(m.supportedActions, ['embedContent', 'batchEmbedContents', 'countTokens']);
  const paged = (await (await fetch(`${gw.url}/v1beta/models?pageSize=2&key=${KEY}`)).json()) as any;
  t.is(paged.models.length, 2);
  t.truthy(paged.nextPageToken);
  const next = (await (await fetch(`${gw.url}/v1beta/models?pageSize=2&pageToken=${paged.nextPageToken}&key=${KEY}`)).json()) as any;
  t.deepEqual(
    next.models.map((x: any) => x.name),
    ['models/text-embedding-3-small', 'models/fast'],
  );
  const missing = await fetch(`${gw.url}/v1beta/models/nope`, { headers: { 'x-goog-api-key': KEY } });
  t.is(missing.status, 404);
  t.is(((await missing.json()) as any).error.status, 'NOT_FOUND');

  const openai = new OpenAI({ baseURL: gw.baseURL, apiKey: KEY, maxRetries: 0 });
  const oa = await openai.models.list();
  t.deepEqual(
    oa.data.map((x) => x.id),
    [...OPENAI_MODELS, 'fast'],
  );
  t.is((await openai.models.retrieve('gpt-4o')).object, 'model');
  const anthropic = new Anthropic({ baseURL: gw.url, apiKey: KEY, maxRetries: 0 });
  t.is((await anthropic.models.retrieve('gpt-4o')).type, 'model');
});

test("everything counts: usage (/v1/usage), metrics under the gemini route, the cache (non-stream), rate limit in Google's shape", async (t) => {
  const { gw, up, ai } = await setup(t, { extra: '[extensions.usage]\n[extensions.cache]\n[extensions.rate_limit]\nrequests_per_minute = 5\n' });
  const first = await gpost(gw, '/v1beta/models/gpt-4o:generateContent', HI);
  t.is(first.headers.get('x-gw-cache'), 'miss');
  const again = await gpost(gw, '/v1beta/models/gpt-4o:generateContent', HI);
  t.is(again.headers.get('x-gw-cache'), 'hit');
  t.is(await again.text(), await first.text());
  const other = await gpost(gw, '/v1beta/models/org%2Fmodel-1.5-x:generateContent', HI);
  t.is(other.headers.get('x-gw-cache'), 'miss', 'the model is in the URL: the same body to another model is another entry');
  for await (const _ of await ai.models.generateContentStream({ model: 'gpt-4o', contents: 'Hi' })) void _;
  await ai.models.embedContent({ model: 'text-embedding-3-small', contents: 'x' });
  t.is(up.received.length, 4);

  const limited = await gpost(gw, '/v1beta/models/gpt-4o:generateContent', HI);
  t.is(limited.status, 429);
  t.truthy(limited.headers.get('retry-after'));
  const lb = (await limited.json()) as any;
  t.like(lb.error, { code: 429, status: 'RESOURCE_EXHAUSTED' });
  t.is(lb.error.details.at(-1)['@type'], 'type.googleapis.com/google.rpc.RetryInfo');

  const usage = (await (await fetch(`${gw.url}/v1/usage`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json()) as any[];
  const streamUsage = TEXT_SSE.split('\n\n')
    .filter((l) => l.startsWith('data: {'))
    .map((l) => JSON.parse(l.slice(6)))
    .find((c) => c.usage).usage;
  const pick = (model: string) => usage.find((u) => u.key === 'default' && u.model === model);
  t.like(pick('gpt-4o'), {
    prompt_tokens: CHAT.usage.prompt_tokens + streamUsage.prompt_tokens,
    completion_tokens: CHAT.usage.completion_tokens + streamUsage.completion_tokens,
    requests: 2,
  });
  t.like(pick('text-embedding-3-small'), { prompt_tokens: EMB.usage.prompt_tokens, completion_tokens: 0 });

  const m = await scrape(gw.url);
  t.is(value(m, 'gw_requests_total', { route: 'gemini', model: 'gpt-4o', provider: 'openai', status: '200' }), 2);
  t.is(value(m, 'gw_requests_total', { route: 'gemini', model: 'gpt-4o', status: '200' }), 3, 'and the cache hit');
  t.is(value(m, 'gw_requests_total', { route: 'embeddings', model: 'text-embedding-3-small', status: '200' }), 1);
  t.is(value(m, 'gw_requests_total', { route: 'gemini', status: '429' }), 1);
});

test('budget: the hold reserves maxOutputTokens × candidateCount while the request runs; the spend comes from usage', async (t) => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const { gw } = await setup(t, {
    handler: async (_r, res) => {
      await gate;
      replyJson(res, 200, CHAT);
    },
    extra: '[pricing."gpt-4o"]\ninput_per_mtok = 0\noutput_per_mtok = 1000000\n[extensions.budget]\ndefault_budget = 1000\n',
  });
  const pending = gpost(gw, '/v1beta/models/gpt-4o:generateContent', { ...HI, generationConfig: { maxOutputTokens: 7, candidateCount: 2 } });
  let held: any;
  for (let i = 0; i < 200 && !held?.reserved_usd; i++) {
    held = ((await (await fetch(`${gw.url}/v1/budget`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json()) as any[])[0];
    if (!held?.reserved_usd) await new Promise((r) => setTimeout(r, 10));
  }
  t.is(held.reserved_usd, 14);
  release();
  t.is((await pending).status, 200);
  const after = ((await (await fetch(`${gw.url}/v1/budget`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json()) as any[])[0];
  t.is(after.reserved_usd, 0);
  t.is(after.spent_usd, CHAT.usage.completion_tokens);
});
