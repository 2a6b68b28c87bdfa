/**
 * Prompt-cache request fields (issue 25 item 5): `cache_control` (Messages system blocks,
 * tools, content blocks), `prompt_cache_key` and `prompt_cache_retention` (chat completions,
 * Responses) and Gemini's `cachedContent` reach every upstream that accepts them unchanged,
 * natively and translated; a translation to a vendor without them drops them with a debug
 * log naming the field. docs/formats-and-agents.md has the matrix.
 */
import test, { type ExecutionContext } from 'ava';
import { baseConfig, KEY, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { fixtureJson, replyJson, type Received, startUpstream } from '../helpers/upstream.ts';

const CHAT = () => fixtureJson('openai/spec-examples/chat.default.response.json');
const MESSAGES = () => fixtureJson('anthropic/vercel-ai/anthropic-text.json');
const GEMINI = () => fixtureJson('gemini/vercel-ai/google-text.json');
const RESPONSE = () => fixtureJson('responses/spec-examples/reasoning.response.json');

/** gw at debug level with one provider section `[providers.<name>]` (its own kind) on a mock upstream answering `body`. */
async function setup(t: ExecutionContext, section: string, model: string, body: () => unknown): Promise<{ gw: TestGateway; received: Received[] }> {
  const up = await startUpstream((_r, res) => replyJson(res, 200, body()));
  const base = section === 'openai' || section === 'vllm' ? `${up.origin}/v1` : up.origin;
  const gw = await startGateway(baseConfig(`[providers.${section}]\napi_key = "sk-upstream"\nbase_url = "${base}"\nmax_retries = 0\nmodels = ["${model}"]\n`), {
    level: 'debug',
  });
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  return { gw, received: up.received };
}

async function post(gw: TestGateway, path: string, body: unknown): Promise<Response> {
  return fetch(gw.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}`, 'x-api-key': KEY, 'x-goog-api-key': KEY, 'anthropic-version': '2023-06-01' },
    body: JSON.stringify(body),
  });
}

/** The warnings of gw's debug line about fields a translation dropped. */
function dropped(gw: TestGateway): string[] {
  return gw.logs
    .map((l) => JSON.parse(l))
    .filter((l) => Array.isArray(l.warnings))
    .flatMap((l) => l.warnings as string[]);
}

const EPHEMERAL = { type: 'ephemeral' };
const EPHEMERAL_1H = { type: 'ephemeral', ttl: '1h' };
const messagesBody = {
  model: 'claude-sonnet-4-5',
  max_tokens: 64,
  system: [{ type: 'text', text: 'You are a coding agent. '.repeat(20), cache_control: EPHEMERAL_1H }],
  tools: [{ name: 'read', description: 'Read a file', input_schema: { type: 'object', properties: { path: { type: 'string' } } }, cache_control: EPHEMERAL }],
  messages: [{ role: 'user', content: [{ type: 'text', text: 'Fix the bug.', cache_control: EPHEMERAL }] }],
};

test('Messages client on the anthropic kind (native): cache_control on system, tools and content blocks, TTL included, unchanged', async (t) => {
  const { gw, received } = await setup(t, 'anthropic', 'claude-sonnet-4-5', MESSAGES);
  t.is((await post(gw, '/v1/messages', messagesBody)).status, 200);
  t.deepEqual(received[0]!.json, messagesBody);
});

test('chat client on the anthropic kind (translated): cache_control on content parts, system parts and tools becomes the blocks’ cache_control; prompt_cache_key dropped, logged', async (t) => {
  const { gw, received } = await setup(t, 'anthropic', 'claude-sonnet-4-5', MESSAGES);
  const r = await post(gw, '/v1/chat/completions', {
    model: 'claude-sonnet-4-5',
    prompt_cache_key: 'conv-1',
    messages: [
      { role: 'system', content: [{ type: 'text', text: 'You are a coding agent.', cache_control: EPHEMERAL_1H }] },
      { role: 'user', content: [{ type: 'text', text: 'Fix the bug.', cache_control: EPHEMERAL }] },
    ],
    tools: [{ type: 'function', function: { name: 'read', parameters: { type: 'object' } }, cache_control: EPHEMERAL }],
  });
  t.is(r.status, 200);
  const sent = received[0]!.json;
  t.deepEqual(sent.system, [{ type: 'text', text: 'You are a coding agent.', cache_control: EPHEMERAL_1H }]);
  t.deepEqual(sent.messages[0].content, [{ type: 'text', text: 'Fix the bug.', cache_control: EPHEMERAL }]);
  t.deepEqual(sent.tools[0].cache_control, EPHEMERAL);
  t.false('prompt_cache_key' in sent);
  t.true(dropped(gw).some((w) => w.includes('prompt_cache_key')));
});

test('chat client on the openai kind: prompt_cache_key and prompt_cache_retention unchanged', async (t) => {
  const { gw, received } = await setup(t, 'openai', 'gpt-4o', CHAT);
  const body = { model: 'gpt-4o', prompt_cache_key: 'conv-1', prompt_cache_retention: '24h', messages: [{ role: 'user', content: 'hi' }] };
  t.is((await post(gw, '/v1/chat/completions', body)).status, 200);
  t.deepEqual(received[0]!.json, body);
});

test('Responses client: native on the openai kind, unchanged; translated to a chat upstream, prompt_cache_key and prompt_cache_retention carried over; a wrong type is a 400 naming it', async (t) => {
  const native = await setup(t, 'openai', 'gpt-4o', RESPONSE);
  const body = { model: 'gpt-4o', input: 'hi', prompt_cache_key: 'conv-1', prompt_cache_retention: '24h', store: false };
  t.is((await post(native.gw, '/v1/responses', body)).status, 200);
  t.deepEqual(native.received[0]!.json, body);

  const translated = await setup(t, 'vllm', 'gpt-4o', CHAT);
  t.is((await post(translated.gw, '/v1/responses', body)).status, 200);
  t.like(translated.received[0]!.json, { prompt_cache_key: 'conv-1', prompt_cache_retention: '24h' });
  t.false(dropped(translated.gw).some((w) => w.includes('prompt_cache')));
  const bad = await post(translated.gw, '/v1/responses', { ...body, prompt_cache_key: 5 });
  t.is(bad.status, 400);
  t.like(((await bad.json()) as any).error, { param: 'prompt_cache_key' });
});

test('Gemini client: cachedContent unchanged on the gemini kind (native); dropped and logged on a translated kind', async (t) => {
  const native = await setup(t, 'gemini', 'gemini-2.5-flash', GEMINI);
  const body = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], cachedContent: 'cachedContents/abc123' };
  t.is((await post(native.gw, '/v1beta/models/gemini-2.5-flash:generateContent', body)).status, 200);
  t.deepEqual(native.received[0]!.json, body);

  const translated = await setup(t, 'openai', 'gpt-4o', CHAT);
  t.is((await post(translated.gw, '/v1beta/models/gpt-4o:generateContent', body)).status, 200);
  t.false('cachedContent' in translated.received[0]!.json);
  t.true(dropped(translated.gw).some((w) => w.startsWith('cachedContent dropped')));
});

test('Messages client on the openai kind (translated): cache_control dropped wherever it was (system, tool, content block), logged at debug', async (t) => {
  const { gw, received } = await setup(t, 'openai', 'claude-sonnet-4-5', CHAT);
  t.is((await post(gw, '/v1/messages', messagesBody)).status, 200);
  t.false(JSON.stringify(received[0]!.json).includes('cache_control'));
  // one line per kind of loss: its first place and how many more
  const warned = dropped(gw).filter((w) => w.includes('cache_control dropped'));
  t.is(warned.length, 1);
  t.regex(warned[0]!, /\(at system\[0\]\.cache_control and 2 more\)|\(at tools\[0\]\.cache_control and 2 more\)/);
});

test('chat client on the gemini kind (translated): cache_control on content parts and tools dropped, each logged at debug', async (t) => {
  const { gw, received } = await setup(t, 'gemini', 'gemini-2.5-flash', GEMINI);
  const r = await post(gw, '/v1/chat/completions', {
    model: 'gemini-2.5-flash',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Fix the bug.', cache_control: EPHEMERAL }] }],
    tools: [{ type: 'function', function: { name: 'read', parameters: { type: 'object' } }, cache_control: EPHEMERAL }],
  });
  t.is(r.status, 200);
  t.false(JSON.stringify(received[0]!.json).includes('cache_control'));
  const warned = dropped(gw).filter((w) => w.includes('cache_control dropped'));
  t.deepEqual(
    warned.map((w) => w.split(' ')[0]),
    ['messages[0].content[0].cache_control', 'tools[0].cache_control'],
  );
});
