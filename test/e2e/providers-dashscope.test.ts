import test, { type ExecutionContext } from 'ava';
import OpenAI from 'openai';
import { baseConfig, KEY, startGateway } from '../helpers/gateway.ts';
import { fixture, fixtureJson, replyJson, replySse, startUpstream, type Handler } from '../helpers/upstream.ts';
import { assemble, frames, WEATHER } from './providers-assemble.ts';

const MODEL = 'qwen3-max';
async function setup(t: ExecutionContext, handler: Handler, extra = `models = ["${MODEL}", "text-embedding-v4"]`) {
  const up = await startUpstream(handler);
  const gw = await startGateway(
    baseConfig(
      `[providers.dashscope]\napi_key = "sk-ds-upstream"\nbase_url = "${up.origin}/compatible-mode/v1"\nmessages_base_url = "${up.origin}/apps/anthropic"\nmax_retries = 0\n${extra}\n`,
    ),
  );
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  return { up, gw, client: new OpenAI({ baseURL: gw.baseURL, apiKey: KEY, maxRetries: 0 }) };
}

test('non-stream: body forwarded unchanged (vendor fields included), answer bytes returned unchanged', async (t) => {
  const answer = fixture('dashscope/vercel-ai/alibaba-text.json');
  const { up, gw } = await setup(t, (_r, res) => replyJson(res, 200, answer));
  const sent = JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'Invent a holiday' }], enable_thinking: false, enable_search: true });
  const res = await fetch(`${gw.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: sent,
  });
  t.is(await res.text(), answer);
  const r = up.received[0]!;
  t.is(r.url, '/compatible-mode/v1/chat/completions');
  t.is(r.headers.authorization, 'Bearer sk-ds-upstream');
  t.is(r.body, sent);
});

test('openai client non-stream: content and usage', async (t) => {
  const { client } = await setup(t, (_r, res) => replyJson(res, 200, fixture('dashscope/vercel-ai/alibaba-text.json')));
  const res = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Invent a holiday' }] });
  const expected = fixtureJson('dashscope/vercel-ai/alibaba-text.json');
  t.is(res.choices[0]!.message.content, expected.choices[0].message.content);
  t.is(res.choices[0]!.finish_reason, 'stop');
  t.like(res.usage, { prompt_tokens: 18, completion_tokens: 1064 });
});

test('stream: content reassembled exactly; gw asks for usage, client gets it only when it asked', async (t) => {
  const sse = fixture('dashscope/vercel-ai/alibaba-text.sse');
  const expected = frames(sse)
    .filter((f) => f.data !== '[DONE]')
    .map((f) => JSON.parse(f.data).choices[0]?.delta?.content ?? '')
    .join('');
  const { up, client } = await setup(t, (_r, res) => replySse(res, sse));
  const withUsage = await assemble(
    await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }], stream: true, stream_options: { include_usage: true } }),
  );
  t.is(withUsage.content, expected);
  t.is(withUsage.finish, 'stop');
  t.is(withUsage.usageChunks.length, 1);
  t.is(withUsage.chunks.at(-1), withUsage.usageChunks[0]);
  const without = await assemble(await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }], stream: true }));
  t.is(without.content, expected);
  t.is(without.usageChunks.length, 0);
  t.deepEqual(up.received[1]!.json.stream_options, { include_usage: true });
});

test('stream tool call: fragments with repeated empty ids reassemble to one call', async (t) => {
  const { up, client } = await setup(t, (_r, res) => replySse(res, fixture('dashscope/vercel-ai/alibaba-tool-call.sse')));
  const got = await assemble(
    await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Weather in SF?' }],
      tools: [WEATHER],
      stream: true,
      stream_options: { include_usage: true },
    }),
  );
  t.deepEqual(up.received[0]!.json.tools, [WEATHER]);
  t.deepEqual(got.toolCalls, [{ id: 'call_eee11723464a4b9eb8cee71d', name: 'weather', arguments: '{"location": "San Francisco"}' }]);
  t.is(got.finish, 'tool_calls');
  t.like(got.usageChunks[0]!.usage, { prompt_tokens: 295, completion_tokens: 22 });
});

test('non-stream tool call', async (t) => {
  const { client } = await setup(t, (_r, res) => replyJson(res, 200, fixture('dashscope/vercel-ai/alibaba-tool-call.json')));
  const res = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Weather in SF?' }], tools: [WEATHER] });
  const call = res.choices[0]!.message.tool_calls![0]! as OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall;
  t.is(res.choices[0]!.finish_reason, 'tool_calls');
  t.is(call.id, 'call_962bfd2ab8f54b89a1161356');
  t.deepEqual(JSON.parse(call.function.arguments), { location: 'San Francisco' });
});

test('tool result round trip: messages forwarded as sent', async (t) => {
  const { up, client } = await setup(t, (_r, res) => replyJson(res, 200, fixture('dashscope/vercel-ai/alibaba-text.json')));
  const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
    { role: 'user', content: 'Weather in SF?' },
    {
      role: 'assistant',
      content: '',
      tool_calls: [{ id: 'call_962bfd2ab8f54b89a1161356', type: 'function', function: { name: 'weather', arguments: '{"location": "San Francisco"}' } }],
    },
    { role: 'tool', tool_call_id: 'call_962bfd2ab8f54b89a1161356', content: '18 C' },
  ];
  await client.chat.completions.create({ model: MODEL, messages, tools: [WEATHER] });
  t.deepEqual(up.received[0]!.json.messages, messages);
});

test('embeddings via the compatible path, base64 honoured', async (t) => {
  const { up, client } = await setup(t, (_r, res) =>
    replyJson(res, 200, {
      object: 'list',
      data: [{ object: 'embedding', index: 0, embedding: 'AACAPwAAAEA=' }],
      model: 'text-embedding-v4',
      usage: { prompt_tokens: 2, total_tokens: 2 },
    }),
  );
  const res = await client.embeddings.create({ model: 'text-embedding-v4', input: 'hi' });
  t.is(up.received[0]!.url, '/compatible-mode/v1/embeddings');
  t.is(up.received[0]!.json.encoding_format, 'base64');
  t.deepEqual(res.data[0]!.embedding, [1, 2]);
});

test('model discovery from the common origin /models', async (t) => {
  const { up, client } = await setup(
    t,
    (_r, res) =>
      replyJson(res, 200, {
        object: 'list',
        data: [
          { id: 'qwen3-max', object: 'model' },
          { id: 'qwen-plus', object: 'model' },
        ],
      }),
    '',
  );
  const list = await client.models.list();
  t.deepEqual(list.data.map((m) => m.id).sort(), ['qwen-plus', 'qwen3-max']);
  t.is(up.received[0]!.url, '/compatible-mode/v1/models');
  t.is(up.received[0]!.headers.authorization, 'Bearer sk-ds-upstream');
});

test('upstream 400 kept; 500 → 502 with upstream status', async (t) => {
  let status = 400;
  const { gw } = await setup(t, (_r, res) =>
    replyJson(res, status, {
      error: { message: 'Incorrect parameter', type: 'invalid_request_error', param: null, code: 'invalid_parameter_error' },
      request_id: 'r1',
    }),
  );
  const call = () =>
    fetch(`${gw.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'x' }] }),
    });
  const r400 = await call();
  t.is(r400.status, 400);
  t.like(((await r400.json()) as any).error, { code: 'invalid_parameter_error' });
  status = 500;
  const r500 = await call();
  t.is(r500.status, 502);
  t.like(((await r500.json()) as any).error, { upstream_status: 500 });
});
