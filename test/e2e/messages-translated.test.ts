import Anthropic from '@anthropic-ai/sdk';
import test, { type ExecutionContext } from 'ava';
import { baseConfig, KEY, startGateway } from '../helpers/gateway.ts';
import { fixture, replyJson, replySse, startUpstream, type Handler } from '../helpers/upstream.ts';
import { frames } from './providers-assemble.ts';

const MODEL = 'gpt-4o-mini';
const WEATHER = {
  name: 'get_current_weather',
  description: 'Weather of a place',
  input_schema: { type: 'object' as const, properties: { location: { type: 'string' } }, required: ['location'] },
};

async function setup(t: ExecutionContext, handler: Handler) {
  const up = await startUpstream(handler);
  const gw = await startGateway(
    baseConfig(`[providers.compat]\napi_key = "sk-compat-upstream"\nbase_url = "${up.origin}/v1"\nmax_retries = 0\nmodels = ["${MODEL}"]\n`),
  );
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  return { up, gw, client: new Anthropic({ baseURL: gw.url, apiKey: KEY, maxRetries: 0 }) };
}

/** Content text a common-format SSE fixture carries. */
function streamedText(sse: string): string {
  return frames(sse)
    .filter((f) => f.data !== '[DONE]')
    .map((f) => JSON.parse(f.data).choices[0]?.delta?.content ?? '')
    .join('');
}

test('non-stream: Messages request → chat request upstream, completion → Messages response', async (t) => {
  const { up, client } = await setup(t, (_r, res) => replyJson(res, 200, fixture('openai/spec-examples/chat.default.response.json')));
  const msg = await client.messages.create({ model: MODEL, max_tokens: 100, system: 'Be brief.', messages: [{ role: 'user', content: 'Hello' }] });
  const r = up.received[0]!;
  t.is(r.url, '/v1/chat/completions');
  t.is(r.headers.authorization, 'Bearer sk-compat-upstream');
  t.is(r.headers['x-api-key'], undefined);
  t.like(r.json, {
    model: MODEL,
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hello' },
    ],
  });
  t.is(msg.type, 'message');
  t.is(msg.role, 'assistant');
  t.deepEqual(msg.content, [{ type: 'text', text: 'Hello! How can I assist you today?' } as never]);
  t.is(msg.stop_reason, 'end_turn');
  t.like(msg.usage, { input_tokens: 19, output_tokens: 10 });
});

test('stream: text events reassemble the upstream content; ?beta=true and anthropic-beta not sent upstream', async (t) => {
  const sse = fixture('openai/vercel-ai/openai-text.sse');
  const { up, client } = await setup(t, (_r, res) => replySse(res, sse));
  const stream = client.beta.messages.stream({
    model: MODEL,
    max_tokens: 400,
    messages: [{ role: 'user', content: 'Write' }],
    betas: ['some-beta-2025-01-01'],
  });
  const msg = await stream.finalMessage();
  t.is((msg.content[0] as { text: string }).text, streamedText(sse));
  t.is(msg.stop_reason, 'end_turn');
  t.like(msg.usage, { input_tokens: 16, output_tokens: 300 });
  const r = up.received[0]!;
  t.is(r.url, '/v1/chat/completions');
  t.is(r.headers['anthropic-beta'], undefined);
  t.is(r.json.stream, true);
  t.is(r.json.stream_options.include_usage, true);
});

test('stream tool use: tool_calls deltas → tool_use block with parsed input, stop_reason tool_use', async (t) => {
  const sse = fixture('openai/vercel-ai/chat.stream.tool-call-deltas.sse');
  const { up, client } = await setup(t, (_r, res) => replySse(res, sse));
  const stream = client.messages.stream({
    model: MODEL,
    max_tokens: 100,
    messages: [{ role: 'user', content: 'x' }],
    tools: [{ ...WEATHER, name: 'test-tool' }],
    tool_choice: { type: 'any' },
  });
  const msg = await stream.finalMessage();
  t.deepEqual(up.received[0]!.json.tools, [
    { type: 'function', function: { name: 'test-tool', description: WEATHER.description, parameters: WEATHER.input_schema } },
  ]);
  t.is(up.received[0]!.json.tool_choice, 'required');
  const args = frames(sse)
    .filter((f) => f.data !== '[DONE]')
    .map((f) => JSON.parse(f.data).choices[0]?.delta?.tool_calls?.[0]?.function?.arguments ?? '')
    .join('');
  const tool = msg.content.find((b) => b.type === 'tool_use')!;
  t.like(tool, { id: 'call_O17Uplv4lJvD6DVdIvFFeRMw', name: 'test-tool' });
  t.deepEqual((tool as { input: unknown }).input, JSON.parse(args));
  t.is(msg.stop_reason, 'tool_use');
});

test('non-stream tool use, then the tool_result round trip as chat tool messages', async (t) => {
  const { up, client } = await setup(t, (_r, res) =>
    replyJson(
      res,
      200,
      fixture(up.received.length === 1 ? 'openai/spec-examples/chat.functions.response.json' : 'openai/spec-examples/chat.default.response.json'),
    ),
  );
  const first = await client.messages.create({ model: MODEL, max_tokens: 100, messages: [{ role: 'user', content: 'Weather in Boston?' }], tools: [WEATHER] });
  const tool = first.content.find((b) => b.type === 'tool_use')! as Anthropic.ToolUseBlock;
  t.is(first.stop_reason, 'tool_use');
  t.like(tool, { id: 'call_abc123', name: 'get_current_weather', input: { location: 'Boston, MA' } });
  await client.messages.create({
    model: MODEL,
    max_tokens: 100,
    tools: [WEATHER],
    messages: [
      { role: 'user', content: 'Weather in Boston?' },
      { role: 'assistant', content: first.content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: tool.id, content: '22 C' }] },
    ],
  });
  const sent = up.received[1]!.json.messages;
  t.like(sent[1], { role: 'assistant', tool_calls: [{ id: 'call_abc123', type: 'function', function: { name: 'get_current_weather' } }] });
  t.deepEqual(JSON.parse(sent[1].tool_calls[0].function.arguments), { location: 'Boston, MA' });
  t.like(sent[2], { role: 'tool', tool_call_id: 'call_abc123', content: '22 C' });
});

test('upstream 400 kept in the Messages error shape; 500 → 502', async (t) => {
  let status = 400;
  const { gw } = await setup(t, (_r, res) => replyJson(res, status, fixture('openai/vercel-ai/error.400.unsupported-parameter.json')));
  const call = () =>
    fetch(`${gw.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }),
    });
  const r400 = await call();
  t.is(r400.status, 400);
  const b400 = (await r400.json()) as any;
  t.is(b400.type, 'error');
  t.is(b400.error.type, 'invalid_request_error');
  t.regex(b400.error.message, /max_tokens/);
  status = 500;
  const r500 = await call();
  t.is(r500.status, 502);
  t.regex(((await r500.json()) as any).error.message, /HTTP 500/);
});

test('mid-stream upstream error → one event: error in the Messages shape', async (t) => {
  const head = fixture('openai/vercel-ai/openai-text.sse').split('\n\n').slice(0, 3).join('\n\n');
  const { gw } = await setup(t, (_r, res) => replySse(res, `${head}\n\ndata: {"error":{"message":"boom","type":"server_error"}}\n\n`));
  const res = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'x' }] }),
  });
  t.is(res.status, 200);
  const fr = frames(await res.text());
  t.is(fr[0]!.event, 'message_start');
  t.is(fr.at(-1)!.event, 'error');
  t.regex(JSON.parse(fr.at(-1)!.data).error.message, /boom/);
  t.false(fr.some((f) => f.event === 'message_stop'));
});
