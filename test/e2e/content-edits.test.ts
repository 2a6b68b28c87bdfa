/**
 * The content view's write side (issue 39): an onRequest tap that sets every `texts()` part of
 * `rc.content()` sends the edited request upstream, in every client format, passed through
 * natively and translated, while model names, ids, tool names and schemas stay byte for byte.
 * The masker is a third-party extension (a `gw-plugin-*` package) written on `gw/plugin` alone.
 * Anywhere but onRequest, `set` throws.
 */
import test, { type ExecutionContext } from 'ava';
import { baseConfig, KEY, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { tempPackage } from '../helpers/temp-plugin.ts';
import { fixture, type MockUpstream, replyJson, replySse, startUpstream } from '../helpers/upstream.ts';

/** docs/plugins.md's worked example (its onRequest tap): every key-like string in a text part masked. */
const MASKER = `import { defineExtension } from 'gw/plugin';
import { z } from 'zod';
const KEYS = /sk-[A-Za-z0-9-]{8,}/g;
export default defineExtension({
  name: 'zz-masker',
  configSchema: z.strictObject({}),
  setup({ hooks }) {
    hooks.onRequest.tap('zz-masker', (rc) => {
      for (const part of rc.content().texts()) {
        const masked = part.text.replace(KEYS, '[SECRET]');
        if (masked !== part.text) part.set(masked);
      }
      return undefined;
    });
  },
});
`;

const CHAT_MODEL = 'gpt-5.4-nano';
const CLAUDE = 'claude-sonnet-4-5-20250929';
const GEMINI = 'gemini-2.5-flash';
/** A self-defined section that translates Responses to chat completions. */
const TRANSLATED = 'gpt-5.4-nano-translated';

/** Strings that look like keys in places that are never text: ids, tool names, schemas. */
const ID = 'call_sk-live-identifier';
const TOOL = 'lookup_sk-live-toolname';
const SCHEMA = { type: 'object', properties: { path: { type: 'string', description: 'sk-live-schemadesc' } } };
const ARGS = '{"path":"sk-live-text3","n":2}';

function chatBody(model: string) {
  return {
    model,
    messages: [
      { role: 'system', content: 'Never reveal sk-live-text1' },
      { role: 'user', content: [{ type: 'text', text: 'my key is sk-live-text2' }] },
      { role: 'assistant', content: null, tool_calls: [{ id: ID, type: 'function', function: { name: TOOL, arguments: ARGS } }] },
      { role: 'tool', tool_call_id: ID, content: 'API_KEY=sk-live-text4' },
    ],
    tools: [{ type: 'function', function: { name: TOOL, description: 'reads sk-live-text5', parameters: SCHEMA } }],
  };
}

function messagesBody(model: string) {
  return {
    model,
    max_tokens: 64,
    system: 'Never reveal sk-live-text1',
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'my key is sk-live-text2' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: ID, name: TOOL, input: { path: 'sk-live-text3', n: 2 } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: ID, content: 'API_KEY=sk-live-text4' }] },
    ],
    tools: [{ name: TOOL, description: 'reads sk-live-text5', input_schema: SCHEMA }],
  };
}

function responsesBody(model: string) {
  return {
    model,
    store: false,
    instructions: 'Never reveal sk-live-text1',
    input: [
      { role: 'user', content: [{ type: 'input_text', text: 'my key is sk-live-text2' }] },
      { type: 'function_call', call_id: ID, name: TOOL, arguments: ARGS },
      { type: 'function_call_output', call_id: ID, output: 'API_KEY=sk-live-text4' },
    ],
    tools: [{ type: 'function', name: TOOL, description: 'reads sk-live-text5', parameters: SCHEMA }],
  };
}

function geminiBody() {
  return {
    systemInstruction: { parts: [{ text: 'Never reveal sk-live-text1' }] },
    contents: [
      { role: 'user', parts: [{ text: 'my key is sk-live-text2' }] },
      { role: 'model', parts: [{ functionCall: { name: TOOL, args: { path: 'sk-live-text3', n: 2 } } }] },
      { role: 'user', parts: [{ functionResponse: { name: TOOL, response: { content: 'API_KEY=sk-live-text4' } } }] },
    ],
    tools: [{ functionDeclarations: [{ name: TOOL, description: 'reads sk-live-text5', parameters: SCHEMA }] }],
  };
}

/** `body` as the masker leaves it: each text's secret masked, nothing else touched. */
function masked(body: unknown): unknown {
  return JSON.parse(JSON.stringify(body).replace(/sk-live-text\d/g, '[SECRET]'));
}

async function setup(t: ExecutionContext): Promise<{ gw: TestGateway; up: MockUpstream }> {
  await tempPackage(t, 'zz-masker', MASKER);
  const up = await startUpstream((req, res) => {
    const stream = req.json?.stream === true;
    if (req.url.startsWith('/v1/messages')) return void replyJson(res, 200, JSON.parse(fixture('anthropic/vercel-ai/anthropic-text.json')));
    if (req.url.includes(':generateContent')) return void replyJson(res, 200, JSON.parse(fixture('gemini/vercel-ai/google-text.json')));
    if (req.url.startsWith('/v1/responses')) return void replyJson(res, 200, JSON.parse(fixture('responses/spec-examples/functions.response.json')));
    if (stream) return void replySse(res, fixture('openai/vercel-ai/openai-text.sse'));
    return void replyJson(res, 200, JSON.parse(fixture('openai/spec-examples/chat.default.response.json')));
  });
  const gw = await startGateway(
    baseConfig(`[providers.oa]\nkind = "openai"\napi_key = "sk-o-0123456789"\nbase_url = "${up.origin}/v1"\nmax_retries = 0\nmodels = ["${CHAT_MODEL}"]\n
[providers.oa-translated]\nkind = "openai"\nresponses = "translated"\napi_key = "sk-o-0123456789"\nbase_url = "${up.origin}/v1"\nmax_retries = 0\nmodels = ["${TRANSLATED}"]\n
[providers.claude]\nkind = "anthropic"\napi_key = "sk-a-0123456789"\nbase_url = "${up.origin}"\nmax_retries = 0\nmodels = ["${CLAUDE}"]\n
[providers.gem]\nkind = "gemini"\napi_key = "gk-0123456789"\nbase_url = "${up.origin}"\nmax_retries = 0\nmodels = ["${GEMINI}"]\n
[extensions.zz-masker]\n`),
  );
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  return { gw, up };
}

async function post(gw: TestGateway, path: string, body: unknown): Promise<Response> {
  const res = await fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'x-api-key': KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await res.arrayBuffer();
  return res;
}

/** A translated request: every secret masked, the names and schemas that look like one untouched. */
function assertTranslated(t: ExecutionContext, sent: string): void {
  t.false(sent.includes('sk-live-text'), sent);
  t.true((sent.match(/\[SECRET\]/g) ?? []).length >= 4, sent);
  t.true(sent.includes(TOOL));
  t.true(sent.includes('sk-live-schemadesc'));
}

test('an onRequest tap masking rc.content().texts() reaches every upstream masked, natively and translated, names and ids untouched', async (t) => {
  const { gw, up } = await setup(t);
  const last = () => up.received.at(-1)!;

  // chat completions: the common format, sent on as the (edited) object
  t.is((await post(gw, '/v1/chat/completions', chatBody(CHAT_MODEL))).status, 200);
  t.is(last().url, '/v1/chat/completions');
  t.deepEqual(last().json, masked(chatBody(CHAT_MODEL)));
  t.is(last().json.messages[2].tool_calls[0].function.arguments, '{"path":"[SECRET]","n":2}');
  // … and translated to Messages
  t.is((await post(gw, '/v1/chat/completions', chatBody(CLAUDE))).status, 200);
  t.is(last().url, '/v1/messages');
  assertTranslated(t, last().body);
  t.true(last().body.includes(ID));

  // Messages: passed through, and translated to chat completions
  t.is((await post(gw, '/v1/messages', messagesBody(CLAUDE))).status, 200);
  t.is(last().url, '/v1/messages');
  t.deepEqual(last().json, masked(messagesBody(CLAUDE)));
  t.is((await post(gw, '/v1/messages', messagesBody(CHAT_MODEL))).status, 200);
  t.is(last().url, '/v1/chat/completions');
  assertTranslated(t, last().body);

  // Responses: passed through, and translated
  t.is((await post(gw, '/v1/responses', responsesBody(CHAT_MODEL))).status, 200);
  t.is(last().url, '/v1/responses');
  t.deepEqual(last().json, masked(responsesBody(CHAT_MODEL)));
  t.is((await post(gw, '/v1/responses', responsesBody(TRANSLATED))).status, 200);
  t.is(last().url, '/v1/chat/completions');
  assertTranslated(t, last().body);

  // Gemini: passed through (model in the URL, never in the body), and translated
  t.is((await post(gw, `/v1beta/models/${GEMINI}:generateContent`, geminiBody())).status, 200);
  t.is(last().url, `/v1beta/models/${GEMINI}:generateContent`);
  t.deepEqual(last().json, masked(geminiBody()));
  t.is((await post(gw, `/v1beta/models/${CHAT_MODEL}:generateContent`, geminiBody())).status, 200);
  t.is(last().url, '/v1/chat/completions');
  assertTranslated(t, last().body);
});

test('a request no tap edits goes upstream as the client sent its bytes', async (t) => {
  const { gw, up } = await setup(t);
  const body = '{"model":"gpt-5.4-nano",   "messages":[{"role":"user","content":"nothing secret"}]}';
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body,
  });
  t.is(res.status, 200);
  t.is(up.received[0]!.body, body);
});

test('set is refused outside onRequest: in onChunk, on an answer, on the request after onRequest', async (t) => {
  const { gw } = await setup(t);
  const refusals: string[] = [];
  const attempt = (where: string, set: (() => void) | undefined) => {
    if (set === undefined) return void refusals.push(`${where}: no part`);
    try {
      set();
      refusals.push(`${where}: written`);
    } catch (err) {
      refusals.push(`${where}: ${(err as Error).message}`);
    }
  };
  const hooks = gw.running.gateway.hooks;
  hooks.onChunk.tap('zz-test', (_rc, chunk) => {
    const delta = chunk.content().deltas[0];
    if (delta !== undefined && !refusals.some((r) => r.startsWith('onChunk'))) attempt('onChunk', () => delta.set('x'));
  });
  hooks.onResponse.tap('zz-test', (rc, info) => {
    const part = info.content()?.texts()[0];
    attempt('onResponse answer', part && (() => part.set('x')));
    const request = rc.content().texts()[0];
    attempt('onResponse request', request && (() => request.set('x')));
  });
  t.is((await post(gw, '/v1/chat/completions', chatBody(CHAT_MODEL))).status, 200);
  t.is((await post(gw, '/v1/chat/completions', { ...chatBody(CHAT_MODEL), stream: true })).status, 200);
  const readOnly = 'content is read-only here: edits are honoured in onRequest';
  t.deepEqual(refusals, [
    `onResponse answer: ${readOnly}`,
    `onResponse request: ${readOnly}`,
    `onChunk: ${readOnly}`,
    'onResponse answer: no part',
    `onResponse request: ${readOnly}`,
  ]);
});
