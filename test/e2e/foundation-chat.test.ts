/**
 * Foundation: /v1/chat/completions through gw to a real-socket mock OpenAI upstream that
 * replays recorded payloads, with the official openai client. Non-stream, stream (chunk by
 * chunk, incrementally), tool calls, aliases, round-robin and the include_usage rule.
 */
import test from 'ava';
import OpenAI from 'openai';
import { baseConfig, KEY, startGateway } from '../helpers/gateway.ts';
import { fixture, fixtureJson, replyJson, replySse, startUpstream, toSse } from '../helpers/upstream.ts';

const TEXT_SSE = 'openai/vercel-ai/openai-text.sse';
const TOOL_SSE = 'openai/vercel-ai/chat.stream.tool-call-deltas.sse';

/** The JSON payloads of an SSE text, `[DONE]` excluded. */
function payloads(sse: string): any[] {
  return sse
    .split('\n\n')
    .map((e) => e.trim())
    .filter((e) => e.startsWith('data: ') && e !== 'data: [DONE]')
    .map((e) => JSON.parse(e.slice(6)));
}

async function setup(t: import('ava').ExecutionContext, handler: Parameters<typeof startUpstream>[0], extra = '') {
  const up = await startUpstream(handler);
  const gw = await startGateway(
    baseConfig(
      `[providers.up]\napi_key = "sk-upstream-secret-123456"\nbase_url = "${up.origin}/v1"\nmodels = ["gpt-5.4", "gpt-4o-mini", "gpt-3.5-turbo-0125"]\nmax_retries = 0\n${extra}`,
    ),
  );
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  return { up, gw, client: new OpenAI({ baseURL: gw.baseURL, apiKey: KEY, maxRetries: 0 }) };
}

test('non-stream: the spec example completion comes back unchanged; the upstream gets the body byte-identical', async (t) => {
  const response = fixture('openai/spec-examples/chat.default.response.json');
  const { up, gw, client } = await setup(t, (_r, res) => replyJson(res, 200, response));
  const request = { ...fixtureJson('openai/spec-examples/chat.default.request.json'), model: 'gpt-5.4' };
  const completion = await client.chat.completions.create(request);
  t.deepEqual(completion, JSON.parse(response));
  t.is(up.received.length, 1);
  const got = up.received[0]!;
  t.is(got.method, 'POST');
  t.is(got.url, '/v1/chat/completions');
  t.is(got.headers.authorization, 'Bearer sk-upstream-secret-123456');
  t.deepEqual(got.json, request);
  // raw passthrough: exact bytes both ways
  const raw = '{"model":"gpt-5.4",  "messages":[{"role":"user","content":"Hello!"}], "x_unknown": 1.50}';
  const r = await fetch(`${gw.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: raw,
  });
  t.is(r.status, 200);
  t.is(await r.text(), response);
  t.is(up.received[1]!.body, raw);
  t.is(r.headers.get('x-gw-provider'), 'up');
});

test('stream: content reassembles exactly, every chunk passes through in order and unchanged', async (t) => {
  const sse = fixture(TEXT_SSE);
  const upstreamChunks = payloads(sse);
  const { up, client } = await setup(t, (_r, res) => replySse(res, sse));
  const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: true });
  const got: any[] = [];
  for await (const c of stream) got.push(c);
  // the client did not ask for usage: the upstream's usage chunk (the last one) is withheld
  const expected = upstreamChunks.filter((c) => c.choices.length > 0);
  t.is(expected.length, upstreamChunks.length - 1);
  t.deepEqual(got, expected);
  const text = got.map((c) => c.choices[0]?.delta?.content ?? '').join('');
  t.is(text, expected.map((c) => c.choices[0].delta.content ?? '').join(''));
  t.true(text.length > 500);
  t.is(up.received[0]!.json.stream, true);
});

test('stream: raw SSE bytes of each chunk are forwarded as the upstream sent them', async (t) => {
  const sse = fixture(TEXT_SSE);
  const { gw } = await setup(t, (_r, res) => replySse(res, sse));
  const r = await fetch(`${gw.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: true }),
  });
  t.is(r.status, 200);
  t.regex(r.headers.get('content-type') ?? '', /^text\/event-stream/);
  const events = sse.split('\n\n').filter((e) => e.trim() && !e.includes('"choices":[]'));
  t.is(await r.text(), events.map((e) => `${e}\n\n`).join(''));
});

test('stream: the client sees the first chunk before the upstream has sent the rest', async (t) => {
  const events = fixture(TEXT_SSE)
    .split('\n\n')
    .filter((e) => e.trim());
  let clientSawFirst!: () => void;
  const sawFirst = new Promise<void>((r) => (clientSawFirst = r));
  let upstreamDone = false;
  const { client } = await setup(t, async (_r, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`${events[0]}\n\n`);
    // hold the rest until the client has the first chunk: a buffering gateway deadlocks here
    const held = await Promise.race([sawFirst.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 3000))]);
    if (!held) t.fail('the client did not see the first chunk while the upstream was still streaming');
    for (const e of events.slice(1)) res.write(`${e}\n\n`);
    upstreamDone = true;
    res.end();
  });
  const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: true });
  let n = 0;
  for await (const _c of stream) {
    if (n++ === 0) {
      t.false(upstreamDone);
      clientSawFirst();
    }
  }
  t.true(upstreamDone);
  t.true(n > 100);
});

test('tool calls, non-stream: tools and tool_choice reach the upstream byte-identical; tool_calls come back', async (t) => {
  const response = fixture('openai/spec-examples/chat.functions.response.json');
  const { up, client } = await setup(t, (_r, res) => replyJson(res, 200, response));
  const request = fixtureJson('openai/spec-examples/chat.functions.request.json');
  const completion = await client.chat.completions.create(request);
  t.deepEqual(completion, JSON.parse(response));
  t.is(completion.choices[0]!.finish_reason, 'tool_calls');
  t.is(completion.choices[0]!.message.tool_calls![0]!.id, 'call_abc123');
  const body = up.received[0]!.body;
  t.true(body.includes(JSON.stringify(request.tools)));
  t.true(body.includes(`"tool_choice":${JSON.stringify(request.tool_choice)}`));
  t.deepEqual(up.received[0]!.json, request);
});

test('tool calls, stream: tool_call deltas pass through and reassemble; tools reach the upstream byte-identical', async (t) => {
  const sse = fixture(TOOL_SSE);
  const { up, client } = await setup(t, (_r, res) => replySse(res, sse));
  const request = fixtureJson<OpenAI.ChatCompletionCreateParamsNonStreaming>('openai/spec-examples/chat.functions.request.json');
  const tool_choice = { type: 'function' as const, function: { name: 'get_current_weather' } };
  const stream = await client.chat.completions.create({ ...request, model: 'gpt-3.5-turbo-0125', tool_choice, stream: true });
  const got: any[] = [];
  for await (const c of stream) got.push(c);
  t.deepEqual(
    got,
    payloads(sse).filter((c) => c.choices.length > 0),
  );
  const call = got[0].choices[0].delta.tool_calls[0];
  t.is(call.id, 'call_O17Uplv4lJvD6DVdIvFFeRMw');
  t.is(call.function.name, 'test-tool');
  const args = got.map((c) => c.choices[0]?.delta?.tool_calls?.[0]?.function?.arguments ?? '').join('');
  t.deepEqual(JSON.parse(args), { value: 'Sparkle Day' });
  t.is(got.at(-1).choices[0].finish_reason, 'tool_calls');
  const body = up.received[0]!.body;
  t.true(body.includes(`"tools":${JSON.stringify(request.tools)}`));
  t.true(body.includes(`"tool_choice":${JSON.stringify(tool_choice)}`));
});

test('an alias routes to the canonical model: the upstream receives the canonical name', async (t) => {
  const response = fixture('openai/spec-examples/chat.default.response.json');
  const { up, client } = await setup(t, (_r, res) => replyJson(res, 200, response), '[aliases]\ngpt5 = "gpt-5.4"\n');
  await client.chat.completions.create({ model: 'gpt5', messages: [{ role: 'user', content: 'Hello!' }] });
  t.is(up.received[0]!.json.model, 'gpt-5.4');
  up.handle((_r, res) => replySse(res, fixture(TEXT_SSE)));
  const stream = await client.chat.completions.create({ model: 'gpt5', messages: [{ role: 'user', content: 'Hello!' }], stream: true });
  for await (const _c of stream) {
    /* drain */
  }
  t.is(up.received[1]!.json.model, 'gpt-5.4');
});

test('round-robin: two providers listing one model share the requests in turn', async (t) => {
  const response = fixture('openai/spec-examples/chat.default.response.json');
  const a = await startUpstream((_r, res) => replyJson(res, 200, response));
  const b = await startUpstream((_r, res) => replyJson(res, 200, response));
  const gw = await startGateway(
    baseConfig(
      `[providers.a]\napi_key = "sk-a"\nbase_url = "${a.origin}/v1"\nmodels = ["shared"]\n\n[providers.b]\napi_key = "sk-b"\nbase_url = "${b.origin}/v1"\nmodels = ["shared"]\n`,
    ),
  );
  t.teardown(async () => {
    await gw.stop();
    await a.close();
    await b.close();
  });
  const order: string[] = [];
  for (let i = 0; i < 4; i++) {
    const r = await fetch(`${gw.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'shared', messages: [{ role: 'user', content: `n${i}` }] }),
    });
    t.is(r.status, 200);
    order.push(r.headers.get('x-gw-provider')!);
  }
  t.is(a.received.length, 2);
  t.is(b.received.length, 2);
  t.not(order[0], order[1]);
  t.is(order[0], order[2]);
  t.is(order[1], order[3]);
});

test('include_usage asked: exactly one choices:[] usage chunk, after the finish chunk', async (t) => {
  const sse = fixture('openai/openai-node/chat.stream.include-usage.sse');
  const { up, client } = await setup(t, (_r, res) => replySse(res, sse), '');
  const stream = await client.chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'hi' }],
    stream: true,
    stream_options: { include_usage: true },
  });
  const got: any[] = [];
  for await (const c of stream) got.push(c);
  const withUsage = got.filter((c) => c.usage);
  t.is(withUsage.length, 1);
  t.deepEqual(got.at(-1).choices, []);
  t.deepEqual(got.at(-1).usage, { prompt_tokens: 17, completion_tokens: 10, total_tokens: 27 });
  t.is(got.at(-2).choices[0].finish_reason, 'stop');
  t.deepEqual(up.received[0]!.json.stream_options, { include_usage: true });
});

test('include_usage not asked: no chunk carries usage, yet the upstream was asked for it', async (t) => {
  const sse = fixture('openai/openai-node/chat.stream.include-usage.sse');
  const { up, client } = await setup(t, (_r, res) => replySse(res, sse));
  const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: true });
  const got: any[] = [];
  for await (const c of stream) got.push(c);
  t.true(got.length > 3);
  t.true(got.every((c) => !c.usage && c.choices.length > 0));
  t.is(got.at(-1).choices[0].finish_reason, 'stop');
  t.deepEqual(up.received[0]!.json.stream_options, { include_usage: true });
  // other stream_options the client sent are kept
  await client.chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'hi' }],
    stream: true,
    stream_options: { include_usage: false, include_obfuscation: false } as any,
  });
  t.deepEqual(up.received[1]!.json.stream_options, { include_usage: true, include_obfuscation: false });
});

test('include_usage: usage carried on the finish chunk (Zhipu-style upstream) becomes one separate chunk, or none', async (t) => {
  const base = { id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini' };
  const usage = { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 };
  const sse = toSse([
    { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: 'Hi' }, finish_reason: null }] },
    { ...base, choices: [{ index: 0, delta: { content: ' there' }, finish_reason: 'stop' }], usage },
  ]);
  const { client } = await setup(t, (_r, res) => replySse(res, sse));
  const asked: any[] = [];
  for await (const c of await client.chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'hi' }],
    stream: true,
    stream_options: { include_usage: true },
  }))
    asked.push(c);
  t.is(asked.length, 3);
  t.is(asked.filter((c) => c.usage).length, 1);
  t.is(asked[1].choices[0].finish_reason, 'stop');
  t.is(asked[1].choices[0].delta.content, ' there');
  t.deepEqual(asked[2].choices, []);
  t.deepEqual(asked[2].usage, usage);
  const plain: any[] = [];
  for await (const c of await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: true }))
    plain.push(c);
  t.is(plain.length, 2);
  t.true(plain.every((c) => !c.usage));
});
