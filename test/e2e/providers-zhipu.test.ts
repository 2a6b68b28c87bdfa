import test, { type ExecutionContext } from 'ava';
import OpenAI from 'openai';
import { baseConfig, KEY, startGateway } from '../helpers/gateway.ts';
import { fixture, fixtureJson, replyJson, replySse, startUpstream, type Handler } from '../helpers/upstream.ts';
import { assemble, frames } from './providers-assemble.ts';

const MODEL = 'glm-4.7-flash';
const DIR = 'zhipu/fantasy-cassettes/glm-4.7-flash';
const transcript = (name: string) => fixtureJson<Array<{ request: { body: any }; response: { status: number; body: any } }>>(`${DIR}.${name}.transcript.json`);

async function setup(t: ExecutionContext, handler: Handler, extra = `models = ["${MODEL}", "embedding-3"]`) {
  const up = await startUpstream(handler);
  const gw = await startGateway(
    baseConfig(`[providers.zhipu]\napi_key = "sk-zp-upstream"\nbase_url = "${up.origin}/api/paas/v4"\nmax_retries = 0\n${extra}\n`),
  );
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  return { up, gw, client: new OpenAI({ baseURL: gw.baseURL, apiKey: KEY, maxRetries: 0 }) };
}

/** Text a stream fixture's chunks carry in `field`. */
function streamed(sse: string, field: 'content' | 'reasoning_content'): string {
  return frames(sse)
    .filter((f) => f.data !== '[DONE]')
    .map((f) => JSON.parse(f.data).choices[0]?.delta?.[field] ?? '')
    .join('');
}

test('non-stream: request forwarded with Bearer, answer (reasoning_content, request_id) unchanged', async (t) => {
  const [ia] = transcript('simple');
  const { up, client } = await setup(t, (_r, res) => replyJson(res, 200, ia!.response.body));
  const res = await client.chat.completions.create(ia!.request.body);
  t.is(up.received[0]!.url, '/api/paas/v4/chat/completions');
  t.is(up.received[0]!.headers.authorization, 'Bearer sk-zp-upstream');
  t.deepEqual(up.received[0]!.json, ia!.request.body);
  t.deepEqual({ ...res }, ia!.response.body, 'the exact body');
  t.is(res.choices[0]!.message.content, 'Olá! (Oh-lah)');
});

test('stream: reasoning and content reassembled; usage on the finish chunk becomes its own chunk', async (t) => {
  const sse = fixture(`${DIR}.simple_streaming.0.response.sse`);
  const { client } = await setup(t, (_r, res) => replySse(res, sse));
  const got = await assemble(
    await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Say hi in Portuguese' }],
      stream: true,
      stream_options: { include_usage: true },
    }),
  );
  t.is(got.content, streamed(sse, 'content'));
  t.is(got.reasoning, streamed(sse, 'reasoning_content'));
  t.is(got.finish, 'stop');
  t.is(got.usageChunks.length, 1);
  const last = got.chunks.at(-1)!;
  t.is(last, got.usageChunks[0]);
  t.deepEqual(last.choices, []);
  t.like(last.usage, { prompt_tokens: 15, completion_tokens: 734, total_tokens: 749 });
  const finish = got.chunks.find((c) => c.choices[0]?.finish_reason)!;
  t.falsy(finish.usage, 'the finish chunk no longer carries usage');
});

test('stream without include_usage: no chunk carries usage', async (t) => {
  const { client } = await setup(t, (_r, res) => replySse(res, fixture(`${DIR}.simple_streaming.0.response.sse`)));
  const got = await assemble(await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }], stream: true }));
  t.is(got.usageChunks.length, 0);
  t.is(got.finish, 'stop');
});

test('stream tool call delivered in one delta; then the tool result round trip', async (t) => {
  const [first, second] = transcript('tool_streaming');
  let n = 0;
  const { up, client } = await setup(t, (_r, res) => replySse(res, fixture(`${DIR}.tool_streaming.${n++}.response.sse`)));
  const got = await assemble(
    (await client.chat.completions.create(first!.request.body)) as unknown as AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>,
  );
  t.deepEqual(got.toolCalls, [{ id: 'call_3532c842716b4c72a7dd7498', name: 'weather', arguments: '{"location":"Florence,Italy"}' }]);
  t.is(got.finish, 'tool_calls');
  t.like(got.usageChunks[0]!.usage, { prompt_tokens: 173, completion_tokens: 93 });
  t.deepEqual(up.received[0]!.json, first!.request.body);
  const after = await assemble(
    (await client.chat.completions.create(second!.request.body)) as unknown as AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>,
  );
  t.deepEqual(up.received[1]!.json, second!.request.body, 'tool message and reasoning_content forwarded as sent');
  t.is(after.content, streamed(fixture(`${DIR}.tool_streaming.1.response.sse`), 'content'));
  t.is(after.finish, 'stop');
});

test('non-stream tool call and tool result round trip', async (t) => {
  const [first, second] = transcript('tool');
  let n = 0;
  const { up, client } = await setup(t, (_r, res) => replyJson(res, 200, [first, second][n++]!.response.body));
  const res = await client.chat.completions.create(first!.request.body);
  const call = res.choices[0]!.message.tool_calls![0]! as OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall;
  t.is(res.choices[0]!.finish_reason, 'tool_calls');
  t.is(call.id, 'call_-7807249954186984837');
  t.deepEqual(JSON.parse(call.function.arguments), { location: 'Florence,Italy' });
  const res2 = await client.chat.completions.create(second!.request.body);
  t.deepEqual(up.received[1]!.json, second!.request.body);
  t.regex(res2.choices[0]!.message.content!, /40°C/);
});

test('finish_reason sensitive → content_filter (stream and non-stream); other chunks untouched', async (t) => {
  const sse = fixture(`${DIR}.simple_streaming.0.response.sse`).replace('"finish_reason":"stop"', '"finish_reason":"sensitive"');
  const [ia] = transcript('simple');
  const body = { ...ia!.response.body, choices: [{ ...ia!.response.body.choices[0], finish_reason: 'sensitive' }] };
  const { up, client } = await setup(t, (r, res) => (r.json.stream ? replySse(res, sse) : replyJson(res, 200, body)));
  const got = await assemble(
    await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }], stream: true, stream_options: { include_usage: true } }),
  );
  t.is(got.finish, 'content_filter');
  t.is(got.content, streamed(sse, 'content'));
  t.like(got.usageChunks[0]!.usage, { prompt_tokens: 15, completion_tokens: 734 });
  const res = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }] });
  t.is(res.choices[0]!.finish_reason, 'content_filter');
  t.is(res.choices[0]!.message.content, 'Olá! (Oh-lah)');
  t.is(up.received.length, 2);
});

test('embeddings via the compatible path', async (t) => {
  const { up, client } = await setup(t, (_r, res) =>
    replyJson(res, 200, {
      object: 'list',
      data: [{ object: 'embedding', index: 0, embedding: [0.5, 0.25] }],
      model: 'embedding-3',
      usage: { prompt_tokens: 1, total_tokens: 1 },
    }),
  );
  const res = await client.embeddings.create({ model: 'embedding-3', input: 'hi', encoding_format: 'float' });
  t.is(up.received[0]!.url, '/api/paas/v4/embeddings');
  t.deepEqual(res.data[0]!.embedding, [0.5, 0.25]);
});

test('model discovery from the common origin /models', async (t) => {
  const { up, client } = await setup(
    t,
    (_r, res) =>
      replyJson(res, 200, {
        object: 'list',
        data: [
          { id: 'glm-4.7', object: 'model' },
          { id: 'glm-4.7-flash', object: 'model' },
        ],
      }),
    '',
  );
  t.deepEqual((await client.models.list()).data.map((m) => m.id).sort(), ['glm-4.7', 'glm-4.7-flash']);
  t.is(up.received[0]!.url, '/api/paas/v4/models');
});

test('Zhipu error body (business code, Chinese message): 400 kept, code kept', async (t) => {
  const { gw } = await setup(t, (_r, res) => replyJson(res, 400, { error: { code: '1211', message: '模型不存在，请检查模型代码。' } }));
  const res = await fetch(`${gw.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'x' }] }),
  });
  t.is(res.status, 400);
  const body = (await res.json()) as any;
  t.is(body.error.code, '1211');
  t.regex(body.error.message, /模型不存在/);
});

test('error inside the stream (data: {"error":…}) → SSE error event after the chunks', async (t) => {
  const head = fixture(`${DIR}.simple_streaming.0.response.sse`).split('\n\n').slice(0, 3).join('\n\n');
  const { gw } = await setup(t, (_r, res) => replySse(res, `${head}\n\ndata: {"error":{"code":"1305","message":"overloaded"}}\n\n`));
  const res = await fetch(`${gw.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'x' }], stream: true }),
  });
  t.is(res.status, 200);
  const fr = frames(await res.text());
  t.is(fr.length, 4);
  t.like(JSON.parse(fr[3]!.data).error, { code: 'upstream_error', upstream_code: '1305' });
});
