import test from 'ava';
import OpenAI from 'openai';
import { baseConfig, KEY, startGateway } from '../helpers/gateway.ts';
import { fixture, fixtureJson, replyJson, replySse, startUpstream, type Handler } from '../helpers/upstream.ts';
import { assemble, frames } from './providers-assemble.ts';

const MODEL = 'claude-sonnet-4-5';
const WEATHER_TOOL = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Weather of a city',
    parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
  },
};

async function setup(t: import('ava').ExecutionContext, handler: Handler, extra = '') {
  const up = await startUpstream(handler);
  const gw = await startGateway(
    baseConfig(`[providers.anthropic]\napi_key = "sk-ant-upstream"\nbase_url = "${up.origin}"\nmax_retries = 0\n${extra || `models = ["${MODEL}"]`}\n`),
  );
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  return { up, gw, client: new OpenAI({ baseURL: gw.baseURL, apiKey: KEY, maxRetries: 0 }) };
}

test('non-stream: chat translated to Messages, answer translated back', async (t) => {
  const { up, client } = await setup(t, (_r, res) => replyJson(res, 200, fixture('anthropic/vercel-ai/anthropic-text.json')));
  const res = await client.chat.completions.create({
    model: MODEL,
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi, how are you?' },
    ],
    max_tokens: 300,
  });
  const r = up.received[0]!;
  t.is(r.url, '/v1/messages');
  t.is(r.headers['x-api-key'], 'sk-ant-upstream');
  t.is(r.headers['anthropic-version'], '2023-06-01');
  t.is(r.headers.authorization, undefined);
  t.deepEqual(r.json, { model: MODEL, max_tokens: 300, system: 'Be brief.', messages: [{ role: 'user', content: 'Hi, how are you?' }] });
  t.is(res.choices[0]!.message.content, "Hello! I'm doing well, thanks for asking. How are you doing today? Is there anything I can help you with?");
  t.is(res.choices[0]!.finish_reason, 'stop');
  t.is(res.id, 'msg_01VdEjxAP5ahtHKrrRdNBteQ');
  t.like(res.usage, { prompt_tokens: 12, completion_tokens: 29, total_tokens: 41 });
});

test("the client's anthropic-version is forwarded; without one gw sends 2023-06-01", async (t) => {
  const { up, gw } = await setup(t, (_r, res) => replyJson(res, 200, fixture('anthropic/vercel-ai/anthropic-text.json')));
  const res = await fetch(`${gw.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'anthropic-version': '2023-01-01' },
    body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }),
  });
  t.is(res.status, 200);
  t.is(up.received[0]!.headers['anthropic-version'], '2023-01-01');
  t.is(up.received[0]!.json.max_tokens, 64000, 'default max_tokens of a Sonnet 4.5 model');
});

test('stream: text reassembled, finish stop, one usage chunk last with include_usage', async (t) => {
  const { up, client } = await setup(t, (_r, res) => replySse(res, fixture('anthropic/anthropic-sdk-typescript/basic.sse'), { delayMs: 2 }));
  const got = await assemble(
    await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } }),
  );
  t.is(up.received[0]!.json.stream, true);
  t.is(up.received[0]!.headers.accept, 'text/event-stream');
  t.is(got.content, 'Hello there!');
  t.is(got.finish, 'stop');
  t.is(got.usageChunks.length, 1);
  t.is(got.chunks.at(-1), got.usageChunks[0]);
  t.deepEqual(got.usageChunks[0]!.choices, []);
  t.like(got.usageChunks[0]!.usage, { prompt_tokens: 11, completion_tokens: 6, total_tokens: 17 });
});

test('stream without include_usage: no chunk carries usage', async (t) => {
  const { client } = await setup(t, (_r, res) => replySse(res, fixture('anthropic/anthropic-sdk-typescript/basic.sse')));
  const got = await assemble(await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], stream: true }));
  t.is(got.content, 'Hello there!');
  t.is(got.usageChunks.length, 0);
});

test('stream tool call: index/id/name/arguments reassembled, finish tool_calls; tool sent as Anthropic tool', async (t) => {
  const { up, client } = await setup(t, (_r, res) => replySse(res, fixture('anthropic/anthropic-sdk-typescript/tool_use.sse')));
  const got = await assemble(
    await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [WEATHER_TOOL],
      tool_choice: 'required',
      stream: true,
    }),
  );
  t.deepEqual(up.received[0]!.json.tools, [{ name: 'get_weather', description: 'Weather of a city', input_schema: WEATHER_TOOL.function.parameters }]);
  t.deepEqual(up.received[0]!.json.tool_choice, { type: 'any' });
  t.is(got.content, "I'll check the current weather in Paris for you.");
  t.deepEqual(got.toolCalls, [{ id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn', name: 'get_weather', arguments: '{"location": "Paris"}' }]);
  t.is(got.chunks.find((c) => c.choices[0]?.delta.tool_calls)!.choices[0]!.delta.tool_calls![0]!.index, 0);
  t.is(got.finish, 'tool_calls');
});

test('non-stream tool call: tool_calls with JSON arguments, finish tool_calls', async (t) => {
  const { client } = await setup(t, (_r, res) => replyJson(res, 200, fixture('anthropic/vercel-ai/anthropic-json-tool.1.json')));
  const res = await client.chat.completions.create({
    model: MODEL,
    messages: [{ role: 'user', content: 'weather' }],
    tools: [{ type: 'function', function: { name: 'json', parameters: { type: 'object' } } }],
  });
  const msg = res.choices[0]!.message;
  t.is(res.choices[0]!.finish_reason, 'tool_calls');
  t.is(msg.tool_calls!.length, 1);
  const call = msg.tool_calls![0]! as OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall;
  t.is(call.id, 'toolu_01Q9ExVZnzZj7E2QQYHYtNUa');
  t.is(call.function.name, 'json');
  t.deepEqual(JSON.parse(call.function.arguments), fixtureJson('anthropic/vercel-ai/anthropic-json-tool.1.json').content[0].input);
});

test('tool result round trip: assistant tool_calls + tool message become tool_use + tool_result', async (t) => {
  const { up, client } = await setup(t, (_r, res) => replyJson(res, 200, fixture('anthropic/vercel-ai/anthropic-text.json')));
  await client.chat.completions.create({
    model: MODEL,
    tools: [WEATHER_TOOL],
    messages: [
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [{ id: 'toolu_01', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Paris"}' } }],
      },
      { role: 'tool', tool_call_id: 'toolu_01', content: '18 C' },
    ],
  });
  t.deepEqual(up.received[0]!.json.messages, [
    { role: 'user', content: 'Weather in Paris?' },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Checking.' },
        { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { location: 'Paris' } },
      ],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: '18 C' }] },
  ]);
});

async function post(url: string, body: unknown): Promise<Response> {
  return fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

test('upstream 400 keeps its status and message (OpenAI error shape)', async (t) => {
  const { gw } = await setup(t, (_r, res) =>
    replyJson(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: 999999 > 64000' } }),
  );
  const res = await post(gw.url, { model: MODEL, messages: [{ role: 'user', content: 'hi' }], max_tokens: 999999 });
  t.is(res.status, 400);
  const body = (await res.json()) as any;
  t.regex(body.error.message, /max_tokens: 999999 > 64000/);
  t.is(body.error.code, 'invalid_request_error');
  t.false(JSON.stringify(body).includes('sk-ant-upstream'));
});

test('upstream 529 overloaded → 502 with upstream status and message in the body', async (t) => {
  const { up, gw } = await setup(t, (_r, res) => replyJson(res, 529, fixture('anthropic/vercel-ai/error.529.overloaded.json')));
  const res = await post(gw.url, { model: MODEL, messages: [{ role: 'user', content: 'hi' }] });
  t.is(res.status, 502);
  const body = (await res.json()) as any;
  t.is(body.error.upstream_status, 529);
  t.regex(body.error.message, /Overloaded/);
  t.is(up.received.length, 1);
});

test('upstream 500 → 502 with upstream status', async (t) => {
  const { gw } = await setup(t, (_r, res) => replyJson(res, 500, { type: 'error', error: { type: 'api_error', message: 'Internal server error' } }));
  const res = await post(gw.url, { model: MODEL, messages: [{ role: 'user', content: 'hi' }] });
  t.is(res.status, 502);
  t.like(((await res.json()) as any).error, { upstream_status: 500, code: 'upstream_error', upstream_code: 'api_error' });
});

test('error event as the first stream event → HTTP 502 before the stream starts', async (t) => {
  const { gw } = await setup(t, (_r, res) => replySse(res, fixture('anthropic/vercel-ai/stream.error-event.overloaded.sse')));
  const res = await post(gw.url, { model: MODEL, messages: [{ role: 'user', content: 'hi' }], stream: true });
  t.is(res.status, 502);
  t.like(((await res.json()) as any).error, { upstream_status: 529, code: 'upstream_error', upstream_code: 'overloaded_error' });
});

test('mid-stream event: error → chunks, then one SSE error event and the end (no [DONE])', async (t) => {
  const head = fixture('anthropic/anthropic-sdk-typescript/basic.sse').split('\n\n').slice(0, 4).join('\n\n');
  const { gw } = await setup(t, (_r, res) => replySse(res, `${head}\n\n${fixture('anthropic/vercel-ai/stream.error-event.overloaded.sse')}`));
  const res = await post(gw.url, { model: MODEL, messages: [{ role: 'user', content: 'hi' }], stream: true });
  t.is(res.status, 200);
  const fr = frames(await res.text());
  t.is(JSON.parse(fr[0]!.data).choices[0].delta.role, 'assistant');
  t.true(fr.some((f) => f.data.includes('"Hello"')));
  const last = JSON.parse(fr.at(-1)!.data);
  t.like(last.error, { upstream_status: 529, code: 'upstream_error', upstream_code: 'overloaded_error' });
  t.regex(last.error.message, /Overloaded/);
  t.false(fr.some((f) => f.data === '[DONE]'));
});

test('connection cut mid-stream → SSE error event, no [DONE]', async (t) => {
  const { gw } = await setup(t, (_r, res) => replySse(res, fixture('anthropic/anthropic-sdk-typescript/basic.sse'), { cutAfter: 5, delayMs: 5 }));
  const res = await post(gw.url, { model: MODEL, messages: [{ role: 'user', content: 'hi' }], stream: true });
  t.is(res.status, 200);
  const fr = frames(await res.text());
  t.true(fr.some((f) => f.data.includes('"Hello"')));
  t.is(JSON.parse(fr.at(-1)!.data).error.type, 'upstream_error');
  t.false(fr.some((f) => f.data === '[DONE]'));
});

test('stream ended cleanly before message_stop → SSE error event', async (t) => {
  const head = fixture('anthropic/anthropic-sdk-typescript/basic.sse').split('\n\n').slice(0, 5).join('\n\n');
  const { gw } = await setup(t, (_r, res) => replySse(res, head));
  const res = await post(gw.url, { model: MODEL, messages: [{ role: 'user', content: 'hi' }], stream: true });
  t.is(res.status, 200);
  const fr = frames(await res.text());
  t.true(fr.some((f) => f.data.includes('"Hello"')));
  t.regex(JSON.parse(fr.at(-1)!.data).error.message, /before message_stop/);
});

test('malformed stream event → SSE error event', async (t) => {
  const head = fixture('anthropic/anthropic-sdk-typescript/basic.sse').split('\n\n').slice(0, 4).join('\n\n');
  const { gw } = await setup(t, (_r, res) => replySse(res, `${head}\n\nevent: content_block_delta\ndata: {"type":"content_block_delta",\n\n`));
  const res = await post(gw.url, { model: MODEL, messages: [{ role: 'user', content: 'hi' }], stream: true });
  const fr = frames(await res.text());
  t.regex(JSON.parse(fr.at(-1)!.data).error.message, /provider anthropic sent a stream event that is not a JSON object/);
});

test('malformed JSON body → 502', async (t) => {
  const { gw } = await setup(t, (_r, res) => replyJson(res, 200, '{"id":"msg_1",'));
  const res = await post(gw.url, { model: MODEL, messages: [{ role: 'user', content: 'hi' }] });
  t.is(res.status, 502);
  t.is(((await res.json()) as any).error.code, 'upstream_malformed');
});

test('embeddings are not offered: 400', async (t) => {
  const { gw } = await setup(t, (_r, res) => replyJson(res, 500, {}));
  const res = await fetch(`${gw.baseURL}/embeddings`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, input: 'x' }),
  });
  t.is(res.status, 400);
});

test('model discovery follows has_more/last_id pages of GET /v1/models', async (t) => {
  const { up, client } = await setup(
    t,
    (r, res) => {
      if (r.url.includes('after_id=claude-b'))
        return replyJson(res, 200, { data: [{ type: 'model', id: 'claude-c' }], has_more: false, first_id: 'claude-c', last_id: 'claude-c' });
      return replyJson(res, 200, {
        data: [
          { type: 'model', id: 'claude-a' },
          { type: 'model', id: 'claude-b' },
        ],
        has_more: true,
        first_id: 'claude-a',
        last_id: 'claude-b',
      });
    },
    '# models discovered',
  );
  const list = await client.models.list();
  t.deepEqual(list.data.map((m) => m.id).sort(), ['claude-a', 'claude-b', 'claude-c']);
  t.is(up.received.length, 2);
  t.true(up.received[0]!.url.startsWith('/v1/models?limit='));
  t.regex(up.received[1]!.url, /^\/v1\/models\?limit=\d+&after_id=claude-b$/);
  t.is(up.received[0]!.headers['x-api-key'], 'sk-ant-upstream');
  t.is(up.received[0]!.headers['anthropic-version'], '2023-06-01');
});

test('embeddings on a kind without them (anthropic) answer 400 saying so, and nothing reaches the upstream', async (t) => {
  const { startUpstream: start } = await import('../helpers/upstream.ts');
  const { baseConfig: cfg, KEY: key, startGateway: startGw } = await import('../helpers/gateway.ts');
  const up = await start((_r, res) => {
    res.end();
  });
  const gw = await startGw(cfg(`[providers.anthropic]\napi_key = "sk-ant-upstream"\nbase_url = "${up.origin}"\nmodels = ["claude-x"]\n`));
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  const r = await fetch(`${gw.url}/v1/embeddings`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'claude-x', input: 'hello' }),
  });
  t.is(r.status, 400);
  const e = ((await r.json()) as any).error;
  t.is(e.code, 'embeddings_unsupported');
  t.regex(e.message, /anthropic.*no embeddings endpoint/);
  t.is(up.received.length, 0);
});
