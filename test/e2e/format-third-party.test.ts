/**
 * A third-party client format: gw-plugin-ollama (test/fixtures/gw-plugin-ollama, written
 * only against `gw/plugin`), enabled by `[formats.ollama]`, serves Ollama's chat API through
 * the kernel's generate loop like a built-in format: to a common-format upstream and to an
 * anthropic-kind upstream (translated by the provider), stream (NDJSON) and non-stream, tool
 * calls included; onChunk taps see its lines as `format: 'ollama'`; the request counts in
 * /v1/usage, /v1/budget and the request log; errors come in Ollama's shape.
 */
import test, { type ExecutionContext } from 'ava';
import type { Chunk } from 'gw/plugin';
import { findPlugin } from '../../core/plugins/loader.ts';
import { ADMIN_TOKEN, baseConfig, KEY, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { fixture, fixtureJson, type MockUpstream, replyJson, replySse, startUpstream } from '../helpers/upstream.ts';
import { localProvider, post, setupOtel, traceOf } from './otel-helpers.ts';

const GPT = 'gpt-4o';
const CLAUDE = 'claude-sonnet-4-5';

/** A common-format upstream: the spec's chat answer (19/10 tokens), the openai-node stream (17/10), the vercel-ai tool-call stream (53/17) when tools are sent. */
function commonUpstream(): Promise<MockUpstream> {
  return startUpstream((req, res) => {
    if (req.json?.stream !== true) return replyJson(res, 200, fixtureJson('openai/spec-examples/chat.default.response.json'));
    replySse(res, fixture(req.json.tools ? 'openai/vercel-ai/chat.stream.tool-call-deltas.sse' : 'openai/openai-node/chat.stream.include-usage.sse'));
  });
}

/** An Anthropic Messages upstream: vercel-ai's text answer (12/29 tokens), the SDK's basic stream (11/6), its tool_use stream when tools are sent (377/…). */
function anthropicUpstream(): Promise<MockUpstream> {
  return startUpstream((req, res) => {
    if (req.json?.stream !== true) return replyJson(res, 200, fixture('anthropic/vercel-ai/anthropic-text.json'));
    replySse(res, fixture(req.json.tools ? 'anthropic/anthropic-sdk-typescript/tool_use.sse' : 'anthropic/anthropic-sdk-typescript/basic.sse'));
  });
}

interface Setup {
  gw: TestGateway;
  common: MockUpstream;
  claude: MockUpstream;
  /** The lines onChunk saw, with their format. */
  seen: Array<{ format: string; done: boolean }>;
}

async function setup(t: ExecutionContext, formats = '[formats.ollama]\n'): Promise<Setup> {
  const common = await commonUpstream();
  const claude = await anthropicUpstream();
  const gw = await startGateway(
    baseConfig(`${formats}
[providers.up]
api_key = "sk-upstream-common-0123"
base_url = "${common.origin}/v1"
max_retries = 0
models = ["${GPT}"]

[providers.anthropic]
api_key = "sk-upstream-anthropic-0123"
base_url = "${claude.origin}"
max_retries = 0
models = ["${CLAUDE}"]

[pricing."${GPT}"]
input_per_mtok = 2.5
output_per_mtok = 10.0

[pricing."${CLAUDE}"]
input_per_mtok = 3.0
output_per_mtok = 15.0

[extensions.usage]
[extensions.budget]
default_budget = 10.0
[extensions.request_log]
`),
  );
  const seen: Setup['seen'] = [];
  gw.running.gateway.hooks.onChunk.tap('test', (_rc, chunk: Chunk) => {
    if (chunk.format === 'ollama') seen.push({ format: chunk.format, done: chunk.value.done });
    else seen.push({ format: chunk.format, done: false });
  });
  t.teardown(async () => {
    await gw.stop();
    await common.close();
    await claude.close();
  });
  return { gw, common, claude, seen };
}

function chat(gw: TestGateway, body: unknown, key = KEY): Promise<Response> {
  return fetch(`${gw.url}/api/chat`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** The NDJSON lines of a stream, each parsed (a keep-alive space before a line is JSON whitespace). */
async function lines(r: Response): Promise<any[]> {
  return (await r.text())
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));
}

async function admin(gw: TestGateway, path: string): Promise<any> {
  const r = await fetch(`${gw.url}${path}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  return r.json();
}

/** The request log once it holds `n` entries (each is written just after its answer), polled for at most 2 s. */
async function logOf(gw: TestGateway, n: number): Promise<any[]> {
  for (let i = 0; ; i++) {
    const log: any[] = await admin(gw, '/v1/requests');
    if (log.length >= n || i >= 100) return log;
    await new Promise((r) => setTimeout(r, 20));
  }
}

const HELLO = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'Hello' },
];

test('gw-plugin-ollama is found in node_modules and checked as a client format', async (t) => {
  const found = await findPlugin('format', 'ollama');
  t.is(found?.source, 'npm');
  t.is(found?.module, 'gw-plugin-ollama');
  t.is(found?.plugin.protocol.id, 'ollama');
});

test('non-stream to a common-format upstream: translated both ways, Ollama options mapped, usage as prompt_eval_count / eval_count', async (t) => {
  const { gw, common } = await setup(t);
  const r = await chat(gw, { model: GPT, messages: HELLO, stream: false, options: { temperature: 0.2, num_predict: 50, top_k: 3 } });
  t.is(r.status, 200);
  t.regex(r.headers.get('content-type') ?? '', /application\/json/);
  const body = (await r.json()) as any;
  t.like(body, { model: GPT, message: { role: 'assistant', content: 'Hello! How can I assist you today?' }, done: true, done_reason: 'stop' });
  t.is(body.prompt_eval_count, 19);
  t.is(body.eval_count, 10);
  t.true(body.total_duration > 0);
  const sent = common.received[0]!;
  t.is(sent.url, '/v1/chat/completions');
  t.deepEqual(sent.json, { model: GPT, messages: HELLO, stream: false, temperature: 0.2, max_tokens: 50 });
});

test('stream (Ollama streams by default) to a common-format upstream: NDJSON lines, done last with the usage; onChunk sees each line as format "ollama"', async (t) => {
  const { gw, common, seen } = await setup(t);
  const r = await chat(gw, { model: GPT, messages: HELLO });
  t.is(r.status, 200);
  t.is(r.headers.get('content-type'), 'application/x-ndjson');
  const got = await lines(r);
  t.is(got.map((l) => l.message.content).join(''), '{"city":"San Francisco","units":"c"}');
  t.true(got.slice(0, -1).every((l) => l.done === false && l.model === GPT));
  t.like(got.at(-1), { done: true, done_reason: 'stop', prompt_eval_count: 17, eval_count: 10 });
  t.is(common.received[0]!.json.stream, true);
  t.deepEqual(
    seen,
    got.map((l) => ({ format: 'ollama', done: l.done })),
  );
});

test('tools, stream: argument fragments become one tool call with an object, sent whole before done', async (t) => {
  const { gw, common } = await setup(t);
  const tools = [{ type: 'function', function: { name: 'test-tool', parameters: { type: 'object', properties: { value: { type: 'string' } } } } }];
  const got = await lines(await chat(gw, { model: GPT, messages: [{ role: 'user', content: 'go' }], tools }));
  const calls = got.filter((l) => l.message.tool_calls);
  t.is(calls.length, 1);
  t.deepEqual(calls[0].message.tool_calls, [{ function: { name: 'test-tool', arguments: { value: 'Sparkle Day' } } }]);
  t.like(got.at(-1), { done: true, done_reason: 'stop', prompt_eval_count: 53, eval_count: 17 });
  t.deepEqual(common.received[0]!.json.tools, tools);
  // the answer goes back with its call, and the tool result answers it by name
  const history = [
    { role: 'user', content: 'go' },
    { role: 'assistant', content: '', tool_calls: [{ function: { name: 'test-tool', arguments: { value: 'x' } } }] },
    { role: 'tool', content: 'done', tool_name: 'test-tool' },
  ];
  t.is((await chat(gw, { model: GPT, messages: history, stream: false })).status, 200);
  const [, assistant, tool] = common.received[1]!.json.messages;
  t.deepEqual(assistant.tool_calls, [{ id: 'call_1_0', type: 'function', function: { name: 'test-tool', arguments: '{"value":"x"}' } }]);
  t.deepEqual(tool, { role: 'tool', tool_call_id: 'call_1_0', content: 'done' });
});

test('to an anthropic-kind upstream: the provider translates the common request to Messages; stream and non-stream come back as Ollama answers', async (t) => {
  const { gw, claude, seen } = await setup(t);
  const json = (await (await chat(gw, { model: CLAUDE, messages: HELLO, stream: false, options: { num_predict: 300 } })).json()) as any;
  t.like(json, { model: CLAUDE, done: true, done_reason: 'stop', prompt_eval_count: 12, eval_count: 29 });
  t.regex(json.message.content, /^Hello! I'm doing well/);
  t.is(claude.received[0]!.url, '/v1/messages');
  t.deepEqual(claude.received[0]!.json, { model: CLAUDE, max_tokens: 300, system: 'Be brief.', messages: [{ role: 'user', content: 'Hello' }] });
  const got = await lines(await chat(gw, { model: CLAUDE, messages: HELLO }));
  t.is(got.map((l) => l.message.content).join(''), 'Hello there!');
  t.like(got.at(-1), { done: true, done_reason: 'stop', prompt_eval_count: 11, eval_count: 6 });
  t.is(seen.length, got.length);
  t.true(seen.every((s) => s.format === 'ollama'));
});

test('usage, budget and the request log count its requests like a built-in format’s', async (t) => {
  const { gw } = await setup(t);
  await (await chat(gw, { model: GPT, messages: HELLO, stream: false })).arrayBuffer(); // 19 + 10
  await (await chat(gw, { model: GPT, messages: HELLO })).arrayBuffer(); // 17 + 10
  await (await chat(gw, { model: CLAUDE, messages: HELLO })).arrayBuffer(); // 11 + 6
  const usage: any[] = await admin(gw, '/v1/usage');
  t.like(
    usage.find((u) => u.model === GPT),
    { key: 'default', requests: 2, prompt_tokens: 36, completion_tokens: 20 },
  );
  t.like(
    usage.find((u) => u.model === CLAUDE),
    { key: 'default', requests: 1, prompt_tokens: 11, completion_tokens: 6 },
  );
  const spent = (36 * 2.5 + 20 * 10 + 11 * 3 + 6 * 15) / 1e6;
  const budget = (await admin(gw, '/v1/budget')).find((b: any) => b.key === 'default');
  t.is(Number(budget.spent_usd.toFixed(9)), Number(spent.toFixed(9)));
  const log = await logOf(gw, 3);
  t.is(log.length, 3);
  t.true(log.every((e) => e.route === 'ollama' && e.status === 200 && e.key === 'default'));
  t.like(log[0], { model: CLAUDE, provider: 'anthropic', prompt_tokens: 11, completion_tokens: 6 });
  t.like(log[2], { model: GPT, provider: 'up', prompt_tokens: 19, completion_tokens: 10 });
});

test("errors in Ollama's shape: a bad body names the field, no key, an unknown model, a tool result with no call; a failure mid-stream is one error line", async (t) => {
  const { gw, common } = await setup(t);
  const bad = await chat(gw, { model: GPT, messages: 'hi' });
  t.is(bad.status, 400);
  t.regex(((await bad.json()) as any).error, /messages/);
  const open = await fetch(`${gw.url}/api/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  t.is(open.status, 401);
  t.deepEqual(Object.keys((await open.json()) as object), ['error']);
  const unknown = await chat(gw, { model: 'llama3.2', messages: HELLO });
  t.is(unknown.status, 404);
  t.regex(((await unknown.json()) as any).error, /llama3\.2/);
  const orphan = await chat(gw, { model: GPT, messages: [{ role: 'tool', content: 'x', tool_name: 'nope' }] });
  t.is(orphan.status, 400);
  t.regex(((await orphan.json()) as any).error, /^messages\[0\]: a tool result answers no open tool call named 'nope'/);
  t.is(common.received.length, 0);
  common.handle((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(
      'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}\n\n',
    );
  });
  const cut = await lines(await chat(gw, { model: GPT, messages: HELLO }));
  t.like(cut[0], { message: { content: 'Hi' }, done: false });
  t.is(cut.length, 2);
  t.regex(cut[1].error, /provider up/);
});

test('GET /api/tags lists the models the key may call; [formats.ollama] path_prefix moves the routes', async (t) => {
  const { gw } = await setup(t, '[formats.ollama]\npath_prefix = "/ollama/api"\n');
  const r = await fetch(`${gw.url}/ollama/api/tags`, { headers: { authorization: `Bearer ${KEY}` } });
  t.deepEqual(
    ((await r.json()) as any).models.map((m: any) => m.name),
    [GPT, CLAUDE],
  );
  t.is((await fetch(`${gw.url}/api/tags`, { headers: { authorization: `Bearer ${KEY}` } })).status, 404);
  const doc = (await (await fetch(`${gw.url}/openapi.json`)).json()) as any;
  t.truthy(doc.paths['/ollama/api/chat']?.post);
});

test('otel capture_content: a third-party format with a content reader gets the GenAI input and output messages of its requests, answers and streams', async (t) => {
  const { rx, gw } = await setupOtel(
    t,
    (req, res) =>
      req.json?.stream === true
        ? replySse(res, fixture('openai/openai-node/chat.stream.include-usage.sse'))
        : replyJson(res, 200, fixtureJson('openai/spec-examples/chat.default.response.json')),
    (origin) => localProvider(origin, [GPT]),
    { otel: 'capture_content = true', extra: '[formats.ollama]\n' },
  );
  const messages = [
    { role: 'system', content: 'Answer briefly.' },
    { role: 'user', content: 'What is the weather in Paris?' },
    { role: 'assistant', content: '', tool_calls: [{ function: { name: 'weather', arguments: { city: 'Paris' } } }] },
    { role: 'tool', tool_name: 'weather', content: 'sunny, 21 °C' },
  ];
  const input = [
    { role: 'system', parts: [{ type: 'text', content: 'Answer briefly.' }] },
    { role: 'user', parts: [{ type: 'text', content: 'What is the weather in Paris?' }] },
    {
      role: 'assistant',
      parts: [
        { type: 'text', content: '' },
        { type: 'tool_call', name: 'weather', arguments: '{"city":"Paris"}' },
      ],
    },
    { role: 'tool', parts: [{ type: 'tool_call_response', id: 'weather', result: 'sunny, 21 °C' }] },
  ];
  const whole = await post(`${gw.url}/api/chat`, { model: GPT, stream: false, messages, options: { temperature: 0.2 } });
  t.is(whole.status, 200);
  const { clients } = await traceOf(rx, whole.headers.get('x-gw-trace-id')!, 1);
  const a = clients[0]!.attributes;
  t.deepEqual(JSON.parse(String(a['gen_ai.input.messages'])), input);
  t.deepEqual(JSON.parse(String(a['gen_ai.output.messages'])), [
    { role: 'assistant', parts: [{ type: 'text', content: 'Hello! How can I assist you today?' }], finish_reason: 'stop' },
  ]);
  t.is(a['gen_ai.request.temperature'], 0.2);
  t.is(a['gen_ai.response.model'], GPT);
  t.deepEqual(a['gen_ai.response.finish_reasons'], ['stop']);

  const streamed = await post(`${gw.url}/api/chat`, { model: GPT, messages });
  t.is(streamed.status, 200);
  await streamed.text();
  const stream = (await traceOf(rx, streamed.headers.get('x-gw-trace-id')!, 1)).clients[0]!.attributes;
  t.deepEqual(JSON.parse(String(stream['gen_ai.input.messages'])), input);
  const [out] = JSON.parse(String(stream['gen_ai.output.messages'])) as Array<{ parts: Array<{ content: string }>; finish_reason: string }>;
  t.true(out!.parts[0]!.content.length > 0, JSON.stringify(out));
  t.is(out!.finish_reason, 'stop');
});
