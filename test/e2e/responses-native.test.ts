/**
 * POST /v1/responses on kinds whose upstream speaks Responses: the openai kind (native: the
 * client's body bytes reach the upstream unchanged, the upstream's bytes reach the client
 * unchanged), azure's v1 endpoint, a self-defined section opting in; built-in tools kept;
 * usage from `response.completed`; previous_response_id forwarded to the provider that
 * stored it, expanded for any other; in-band failures forwarded, gw's own numbered on.
 */
import test from 'ava';
import OpenAI from 'openai';
import { fixture, replyJson, replySse, type Received } from '../helpers/upstream.ts';
import { estimateTokens } from '../../lib/common/estimate.ts';
import { admin } from '../helpers/ext-helpers.ts';
import { chunksToSse, KEY, providerToml, replyMessages, responsesEvents, rig } from './responses-helpers.ts';
import { startUpstream } from '../helpers/upstream.ts';
import { baseConfig, startGateway } from '../helpers/gateway.ts';

const MODEL = 'gpt-5.1';
const LINES = fixture('responses/vercel-ai/openai-reasoning-encrypted-content.1.chunks.txt').split('\n');
/** The recording's first stream (reasoning, then a `calculator` call) and its last (the final text). */
const CALL_SSE = chunksToSse(LINES.slice(0, 56));
const TEXT_SSE = chunksToSse(LINES.slice(94, 110));
const calculator: OpenAI.Responses.FunctionTool = {
  type: 'function',
  name: 'calculator',
  description: 'Evaluates an expression',
  strict: false,
  parameters: { type: 'object', properties: { expression: { type: 'string' } }, required: ['expression'] },
};

function raw(gw: { baseURL: string }, body: unknown, key = KEY): Promise<Response> {
  return fetch(`${gw.baseURL}/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

test('openai kind, stream: body bytes and events unchanged both ways; responses.stream then the function_call_output round trip', async (t) => {
  const { up, gw, client } = await rig(
    t,
    'openai',
    MODEL,
    (req, res) => void replySse(res, JSON.stringify(req.json.input).includes('function_call_output') ? TEXT_SSE : CALL_SSE),
    '[extensions.usage]\n',
  );
  // raw: exact bytes
  const body = `{"model":"${MODEL}","stream":true,  "input":"What is 12*7?","tools":[{"type":"function","name":"calculator","parameters":{"type":"object"}}]}`;
  const r = await raw(gw, body);
  t.is(r.status, 200);
  t.is(r.headers.get('x-gw-provider'), 'openai');
  t.is(r.headers.get('x-gw-dropped-tools'), null);
  t.is(await r.text(), CALL_SSE);
  t.is(up.received[0]!.url, '/v1/responses');
  t.is(up.received[0]!.body, body);
  t.is(up.received[0]!.headers.authorization, 'Bearer sk-openai-upstream');
  t.is(up.received[0]!.headers.accept, 'text/event-stream');

  // the SDK: the recorded call, then the output goes back unchanged
  const first = await client.responses
    .stream({ model: MODEL, input: 'What is 12*7?', tools: [calculator], include: ['reasoning.encrypted_content'], store: false })
    .finalResponse();
  const call = first.output.find((o) => o.type === 'function_call');
  if (call?.type !== 'function_call') return t.fail();
  t.is(call.call_id, 'call_AB6AaRZ1FYZB2RwS6A5vbdqn');
  const input = [
    { role: 'user' as const, content: 'What is 12*7?' },
    ...(first.output as OpenAI.Responses.ResponseInputItem[]),
    { type: 'function_call_output' as const, call_id: call.call_id, output: '84' },
  ];
  const second = await client.responses.stream({ model: MODEL, input, tools: [calculator], store: false }).finalResponse();
  t.true(second.output_text.length > 0);
  const sent = up.received[2]!.json;
  t.deepEqual(sent.input.at(-1), { type: 'function_call_output', call_id: call.call_id, output: '84' });
  t.true(
    sent.input.some((i: any) => i.type === 'reasoning' && typeof i.encrypted_content === 'string'),
    'encrypted reasoning goes back to the upstream that made it',
  );

  // usage read from response.completed (three streams: two calls, one text)
  const usage = (await admin(gw, 'GET', '/v1/usage')).body.find((u: any) => u.model === MODEL);
  const completed = (lines: string[]) => JSON.parse(lines.find((l) => l.includes('"response.completed"'))!).response.usage;
  const u1 = completed(LINES.slice(0, 56));
  const u2 = completed(LINES.slice(94, 110));
  t.like(usage, { requests: 3, prompt_tokens: 2 * u1.input_tokens + u2.input_tokens, completion_tokens: 2 * u1.output_tokens + u2.output_tokens });
});

test('openai kind, non-stream: bytes unchanged, built-in tools kept, stored under the upstream id; previous_response_id forwarded unchanged to the same provider', async (t) => {
  const first = fixture('responses/spec-examples/functions.response.json');
  const text = fixture('responses/spec-examples/text-input.response.json');
  const { up, gw, client } = await rig(t, 'openai', MODEL, (req, res) => replyJson(res, 200, req.json.previous_response_id ? text : first));
  const body = JSON.stringify({
    model: MODEL,
    input: 'Weather in Boston?',
    tools: [{ type: 'web_search' }, { type: 'function', name: 'get_current_weather', parameters: { type: 'object' } }],
    tool_choice: { type: 'web_search' },
  });
  const r = await raw(gw, body);
  t.is(r.status, 200);
  t.is(await r.text(), first);
  t.is(r.headers.get('x-gw-dropped-tools'), null);
  t.is(up.received[0]!.body, body);
  const id = JSON.parse(first).id as string;
  t.is((await client.responses.retrieve(id)).id, id);

  const cont = JSON.stringify({
    model: MODEL,
    previous_response_id: id,
    input: [{ type: 'function_call_output', call_id: 'call_unLAR8MvFNptuiZK6K6HCy5k', output: '20C' }],
  });
  const r2 = await raw(gw, cont);
  t.is(r2.status, 200);
  t.is(await r2.text(), text);
  t.is(up.received[1]!.body, cont, 'the provider that stored it holds the conversation: nothing to expand');
});

test('a conversation begun on a translated kind continues on a native one: history expanded into input, gw item ids and previous_response_id not sent', async (t) => {
  const openaiUp = await startUpstream((_req, res) => replyJson(res, 200, fixture('responses/spec-examples/text-input.response.json')));
  const anthUp = await startUpstream((req, res) =>
    replyMessages(res, req.json.stream === true, { text: 'thinking aloud', calls: [{ id: 'toolu_x1', name: 'get_weather', arguments: '{"city":"Oslo"}' }] }),
  );
  const gw = await startGateway(
    baseConfig(`${providerToml('openai', openaiUp.origin, MODEL)}\n${providerToml('anthropic', anthUp.origin, 'claude-sonnet-4-5')}`),
  );
  t.teardown(async () => {
    await gw.stop();
    await openaiUp.close();
    await anthUp.close();
  });
  const client = new OpenAI({ baseURL: gw.baseURL, apiKey: KEY, maxRetries: 0 });
  const tools: OpenAI.Responses.FunctionTool[] = [{ type: 'function', name: 'get_weather', strict: false, parameters: { type: 'object' } }];
  const first = await client.responses.create({ model: 'claude-sonnet-4-5', input: 'Weather in Oslo?', tools });
  await client.responses.create({
    model: MODEL,
    previous_response_id: first.id,
    input: [{ type: 'function_call_output', call_id: 'toolu_x1', output: '-3C' }],
    tools,
  });
  const sent = openaiUp.received[0]!.json;
  t.is(sent.previous_response_id, undefined);
  t.deepEqual(sent.input, [
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Weather in Oslo?' }] },
    { type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'thinking aloud', annotations: [], logprobs: [] }] },
    { type: 'function_call', status: 'completed', call_id: 'toolu_x1', name: 'get_weather', arguments: '{"city":"Oslo"}' },
    { type: 'function_call_output', call_id: 'toolu_x1', output: '-3C' },
  ]);
});

test('azure: native on {base_url}/openai/v1/responses with api-key; a self-defined section opts in with responses = "native", else it is translated', async (t) => {
  const seen: Received[] = [];
  const up = await startUpstream((req, res) => {
    seen.push(req);
    if (req.url.endsWith('/chat/completions')) return replyJson(res, 200, fixture('openai/spec-examples/chat.default.response.json'));
    replyJson(res, 200, fixture('responses/spec-examples/text-input.response.json'));
  });
  const gw = await startGateway(
    baseConfig(`${providerToml('azure', up.origin, 'my-deployment', 'api_version = "2024-10-21"\n')}
[providers.vllm]\napi_key = "sk-v"\nbase_url = "${up.origin}/v1"\nmax_retries = 0\nmodels = ["llama"]\nresponses = "native"\n
[providers.ollama]\napi_key = "sk-o"\nbase_url = "${up.origin}/v1"\nmax_retries = 0\nmodels = ["qwen"]\n`),
  );
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  for (const model of ['my-deployment', 'llama', 'qwen']) t.is((await raw(gw, { model, input: 'hi' })).status, 200);
  t.is(seen[0]!.url, '/openai/v1/responses');
  t.is(seen[0]!.headers['api-key'], 'az-upstream');
  t.is(seen[0]!.json.model, 'my-deployment');
  t.is(seen[1]!.url, '/v1/responses');
  t.is(seen[2]!.url, '/v1/chat/completions');
  t.deepEqual(seen[2]!.json.messages, [{ role: 'user', content: 'hi' }]);
});

test('native stream: the upstream error and response.failed are forwarded unchanged; the SDK throws the upstream message', async (t) => {
  const failing = chunksToSse(fixture('responses/vercel-ai/openai-error.1.chunks.txt').split('\n'));
  const { gw, client } = await rig(t, 'openai', MODEL, (_req, res) => void replySse(res, failing), '[extensions.usage]\n');
  const r = await raw(gw, { model: MODEL, input: 'hi', stream: true });
  t.is(r.status, 200);
  t.is(await r.text(), failing);
  const err = await t.throwsAsync(client.responses.stream({ model: MODEL, input: 'hi' }).finalResponse());
  t.regex(err!.message, /exceeded your current quota/);
  // it failed after its first byte: charged for what it streamed, here no output, so the prompt estimate
  const usage = (await admin(gw, 'GET', '/v1/usage')).body;
  t.like(usage, [{ model: MODEL, completion_tokens: 0, requests: 2, estimated_requests: 2 }]);
  t.true(usage[0].prompt_tokens >= 2 * estimateTokens({ model: MODEL, input: 'hi', stream: true }));
});

test('native stream cut after the first events: gw sends error then response.failed, numbered on from the upstream', async (t) => {
  const { gw } = await rig(t, 'openai', MODEL, (_req, res) => void replySse(res, CALL_SSE, { cutAfter: 5, delayMs: 10 }));
  const r = await raw(gw, { model: MODEL, input: 'hi', stream: true });
  const events = responsesEvents(await r.text());
  t.deepEqual(
    events.map((e) => e.data.sequence_number),
    [0, 1, 2, 3, 4, 5, 6],
  );
  t.deepEqual(
    events.slice(5).map((e) => e.event),
    ['error', 'response.failed'],
  );
  t.is(events[5]!.data.code, 'upstream_connection_lost');
  t.like(events[6]!.data.response, { id: events[0]!.data.response.id, status: 'failed', error: { code: 'server_error' } });
});

test('translated stream cut mid-way: error then response.failed, numbered on; what was sent stays valid for the SDK', async (t) => {
  const sse = fixture('anthropic/anthropic-sdk-typescript/tool_use.sse');
  const { gw, client } = await rig(t, 'anthropic', 'claude-sonnet-4-5', (_req, res) => void replySse(res, sse, { cutAfter: 6, delayMs: 10 }));
  const r = await raw(gw, { model: 'claude-sonnet-4-5', input: 'hi', stream: true });
  const events = responsesEvents(await r.text());
  const seqs = events.map((e) => e.data.sequence_number);
  t.deepEqual(
    seqs,
    seqs.map((_, i) => i),
  );
  t.deepEqual(
    events.slice(-2).map((e) => e.event),
    ['error', 'response.failed'],
  );
  t.like(events.at(-1)!.data.response, { status: 'failed', error: { code: 'server_error' } });
  t.regex(events.at(-2)!.data.message, /anthropic/);
  await t.throwsAsync(client.responses.stream({ model: 'claude-sonnet-4-5', input: 'hi' }).finalResponse());
});
