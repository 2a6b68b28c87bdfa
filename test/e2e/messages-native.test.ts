import Anthropic from '@anthropic-ai/sdk';
import test, { type ExecutionContext } from 'ava';
import { baseConfig, KEY, startGateway } from '../helpers/gateway.ts';
import { fixture, replyJson, replySse, startUpstream, type Handler } from '../helpers/upstream.ts';
import { frames } from './providers-assemble.ts';

const MODEL = 'claude-opus-4-8';

async function setup(t: ExecutionContext, handler: Handler, section?: (origin: string) => string) {
  const up = await startUpstream(handler);
  const providers = section
    ? section(up.origin)
    : `[providers.anthropic]\napi_key = "sk-ant-upstream"\nbase_url = "${up.origin}"\nmax_retries = 0\nmodels = ["${MODEL}"]\n`;
  const gw = await startGateway(baseConfig(providers));
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  return { up, gw, client: new Anthropic({ baseURL: gw.url, apiKey: KEY, maxRetries: 0 }) };
}

function post(url: string, body: string, headers: Record<string, string> = {}, query = ''): Promise<Response> {
  return fetch(`${url}/v1/messages${query}`, {
    method: 'POST',
    headers: { 'x-api-key': KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json', ...headers },
    body,
  });
}

test('anthropic non-stream: body bytes forwarded both ways unchanged; upstream auth replaces the gateway key', async (t) => {
  const answer = fixture('anthropic/vercel-ai/anthropic-text.json');
  const { up, gw } = await setup(t, (_r, res) => replyJson(res, 200, answer));
  const sent = '{"model":"claude-opus-4-8",  "max_tokens":64,"messages":[{"role":"user","content":"Hi"}],"thinking":{"type":"enabled","budget_tokens":1024}}';
  const res = await post(gw.url, sent);
  t.is(res.status, 200);
  t.is(await res.text(), answer);
  const r = up.received[0]!;
  t.is(r.url, '/v1/messages');
  t.is(r.body, sent);
  t.is(r.headers['x-api-key'], 'sk-ant-upstream');
  t.is(r.headers['anthropic-version'], '2023-06-01');
  t.is(r.headers.authorization, undefined);
});

test('anthropic SDK non-stream through gw', async (t) => {
  const { up, client } = await setup(t, (_r, res) => replyJson(res, 200, fixture('anthropic/vercel-ai/anthropic-text.json')));
  const msg = await client.messages.create({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] });
  t.is(msg.id, 'msg_01VdEjxAP5ahtHKrrRdNBteQ');
  t.is((msg.content[0] as { text: string }).text, "Hello! I'm doing well, thanks for asking. How are you doing today? Is there anything I can help you with?");
  t.is(up.received[0]!.headers['x-api-key'], 'sk-ant-upstream');
  t.deepEqual(up.received[0]!.json, { model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] });
});

test('anthropic SDK beta call: anthropic-beta and the client anthropic-version forwarded', async (t) => {
  const { up, client } = await setup(t, (_r, res) => replyJson(res, 200, fixture('anthropic/vercel-ai/anthropic-text.json')));
  await client.beta.messages.create({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }], betas: ['interleaved-thinking-2025-05-14'] });
  const r = up.received[0]!;
  t.is(r.headers['anthropic-beta'], 'interleaved-thinking-2025-05-14');
  t.regex(String(r.headers['anthropic-version']), /^\d{4}-\d{2}-\d{2}$/);
});

test('the query string (?beta=true) is forwarded to the Messages origin', async (t) => {
  const { up, gw } = await setup(t, (_r, res) => replyJson(res, 200, fixture('anthropic/vercel-ai/anthropic-text.json')));
  const res = await post(
    gw.url,
    JSON.stringify({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] }),
    { 'anthropic-beta': 'a-2025-01-01,b-2025-02-02', 'anthropic-version': '2023-01-01' },
    '?beta=true',
  );
  t.is(res.status, 200);
  t.is(up.received[0]!.url, '/v1/messages?beta=true');
  t.is(up.received[0]!.headers['anthropic-beta'], 'a-2025-01-01,b-2025-02-02');
  t.is(up.received[0]!.headers['anthropic-version'], '2023-01-01');
});

test('anthropic stream: events forwarded byte for byte (ping included)', async (t) => {
  const sse = fixture('anthropic/anthropic-sdk-typescript/tool_use.sse');
  const { up, gw } = await setup(t, (_r, res) => replySse(res, sse, { delayMs: 1 }));
  const res = await post(gw.url, JSON.stringify({ model: MODEL, max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'Weather in Paris?' }] }));
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type')!, /text\/event-stream/);
  const text = (await res.text())
    .split('\n\n')
    .filter((f) => f && !f.startsWith(':'))
    .join('\n\n');
  t.is(text, sse.trimEnd());
  t.is(up.received[0]!.headers.accept, 'text/event-stream');
});

test('anthropic SDK stream with tool use reassembles the tool_use block', async (t) => {
  const { client } = await setup(t, (_r, res) => replySse(res, fixture('anthropic/anthropic-sdk-typescript/tool_use.sse')));
  const stream = client.messages.stream({
    model: MODEL,
    max_tokens: 64,
    messages: [{ role: 'user', content: 'Weather in Paris?' }],
    tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: { location: { type: 'string' } } } }],
  });
  const msg = await stream.finalMessage();
  t.is(msg.stop_reason, 'tool_use');
  const tool = msg.content.find((b) => b.type === 'tool_use')!;
  t.like(tool, { id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn', name: 'get_weather', input: { location: 'Paris' } });
});

test('dashscope Messages origin: Bearer auth, messages_base_url path, body forwarded', async (t) => {
  const { up, client } = await setup(
    t,
    (_r, res) => replySse(res, fixture('anthropic/anthropic-sdk-typescript/basic.sse')),
    (o) =>
      `[providers.dashscope]\napi_key = "sk-ds-upstream"\nbase_url = "${o}/compatible-mode/v1"\nmessages_base_url = "${o}/apps/anthropic"\nmodels = ["qwen3-max"]\n`,
  );
  const stream = client.messages.stream({ model: 'qwen3-max', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] });
  const msg = await stream.finalMessage();
  t.is((msg.content[0] as { text: string }).text, 'Hello there!');
  const r = up.received[0]!;
  t.is(r.url, '/apps/anthropic/v1/messages');
  t.is(r.headers.authorization, 'Bearer sk-ds-upstream');
  t.is(r.headers['x-api-key'], undefined);
  t.truthy(r.headers['anthropic-version']);
  t.like(r.json, { model: 'qwen3-max', stream: true });
});

test('zhipu Messages origin: Bearer auth, default path shape under messages_base_url', async (t) => {
  const { up, client } = await setup(
    t,
    (_r, res) => replyJson(res, 200, fixture('anthropic/vercel-ai/anthropic-text.json')),
    (o) => `[providers.zhipu]\napi_key = "sk-zp-upstream"\nmessages_base_url = "${o}/api/anthropic"\nmodels = ["glm-4.7"]\n`,
  );
  await client.messages.create({ model: 'glm-4.7', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] });
  t.is(up.received[0]!.url, '/api/anthropic/v1/messages');
  t.is(up.received[0]!.headers.authorization, 'Bearer sk-zp-upstream');
});

test('upstream 400 kept with its message, in the Messages error shape', async (t) => {
  const { gw } = await setup(t, (_r, res) =>
    replyJson(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: 'messages: at least one message is required' } }),
  );
  const res = await post(gw.url, JSON.stringify({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'x' }] }));
  t.is(res.status, 400);
  const body = (await res.json()) as any;
  t.is(body.type, 'error');
  t.is(body.error.type, 'invalid_request_error');
  t.regex(body.error.message, /at least one message is required/);
});

test('upstream 529 → 502 in the Messages error shape, upstream status in the message', async (t) => {
  const { gw } = await setup(t, (_r, res) => replyJson(res, 529, fixture('anthropic/vercel-ai/error.529.overloaded.json')));
  const res = await post(gw.url, JSON.stringify({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'x' }] }));
  t.is(res.status, 502);
  const body = (await res.json()) as any;
  t.is(body.type, 'error');
  t.regex(body.error.message, /HTTP 529: Overloaded/);
});

test('mid-stream event: error forwarded as is, then the stream ends', async (t) => {
  const head = fixture('anthropic/anthropic-sdk-typescript/basic.sse').split('\n\n').slice(0, 4).join('\n\n');
  const errEvent = fixture('anthropic/vercel-ai/stream.error-event.overloaded.sse');
  const { gw } = await setup(t, (_r, res) => replySse(res, `${head}\n\n${errEvent}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n`));
  const res = await post(gw.url, JSON.stringify({ model: MODEL, max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'x' }] }));
  t.is(res.status, 200);
  const fr = frames(await res.text());
  t.is(fr.at(-1)!.event, 'error');
  t.is(fr.at(-1)!.data, errEvent.split('data: ')[1]!.trim());
  t.is(fr.filter((f) => f.event === 'error').length, 1);
  t.false(fr.some((f) => f.event === 'message_stop'));
});

test('truncated stream → one event: error in the Messages shape', async (t) => {
  const head = fixture('anthropic/anthropic-sdk-typescript/basic.sse').split('\n\n').slice(0, 5).join('\n\n');
  const { gw } = await setup(t, (_r, res) => replySse(res, head));
  const res = await post(gw.url, JSON.stringify({ model: MODEL, max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'x' }] }));
  const fr = frames(await res.text());
  t.is(fr.at(-1)!.event, 'error');
  const err = JSON.parse(fr.at(-1)!.data);
  t.is(err.type, 'error');
  t.regex(err.error.message, /before message_stop/);
});
