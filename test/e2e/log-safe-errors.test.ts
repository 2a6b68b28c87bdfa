/**
 * A 400 may quote the client's own request back to it (the role, tool call arguments or
 * function name at fault), but the operator's stores never keep it: the request log's
 * `error_message` and the log lines name the field and the rule, unless the request log
 * keeps bodies anyway (`log_bodies = true`). Each request below carries a distinctive marker
 * in the field at fault, on every route and translation that answers it with a 4xx, and in an
 * upstream's 400 that quotes the request.
 */
import test from 'ava';
import { ADMIN_TOKEN, baseConfig, KEY, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { replyJson, startUpstream } from '../helpers/upstream.ts';

const M = 'MARKER-q7Zx3v';
/** What the stores must not hold any of (V8's JSON errors quote a cut excerpt). */
const HEAD = 'MARKER';

/** A request, and where its 400 points (`param`, when the route's error shape has one). */
interface Bad {
  name: string;
  path: string;
  body: unknown;
  contentType?: string;
  status?: number;
  /** The answer quotes the marker back (the client may see its own input). */
  quotes?: boolean;
}

const user = { role: 'user', content: 'hi' };
const chat = (model: string, extra: Record<string, unknown>) => ({ model, messages: [user], ...extra });
const call = (args: string) => ({ id: 'call_1', type: 'function', function: { name: 'f', arguments: args } });

const BAD: Bad[] = [
  // zod: the rule and the received type, never the value
  { name: 'chat: stream is not a boolean', path: '/v1/chat/completions', body: chat('gpt-x', { stream: M }) },
  { name: 'embeddings: encoding_format not an option', path: '/v1/embeddings', body: { model: 'gpt-x', input: 'a', encoding_format: M } },
  // the body parser and the headers
  { name: 'malformed JSON', path: '/v1/chat/completions', body: `{"model":"gpt-x","messages":[${M}]}`, quotes: true },
  { name: 'content type', path: '/v1/chat/completions', body: '{}', contentType: `text/plain; x=${M}`, status: 415, quotes: true },
  // chat translated to anthropic
  { name: 'anthropic: role', path: '/v1/chat/completions', body: { model: 'claude-x', messages: [{ role: M, content: 'hi' }] }, quotes: true },
  {
    name: 'anthropic: tool call arguments',
    path: '/v1/chat/completions',
    body: { model: 'claude-x', messages: [user, { role: 'assistant', content: null, tool_calls: [call(`{"secret": "${M}"`)] }] },
    quotes: true,
  },
  { name: 'anthropic: response_format.type', path: '/v1/chat/completions', body: chat('claude-x', { response_format: { type: M } }), quotes: true },
  { name: 'anthropic: reasoning_effort', path: '/v1/chat/completions', body: chat('claude-x', { reasoning_effort: M }), quotes: true },
  {
    name: 'anthropic: content part type',
    path: '/v1/chat/completions',
    body: { model: 'claude-x', messages: [{ role: 'user', content: [{ type: M }] }] },
    quotes: true,
  },
  // chat translated to gemini
  { name: 'gemini: role', path: '/v1/chat/completions', body: { model: 'gemini-x', messages: [{ role: M, content: 'hi' }] }, quotes: true },
  {
    name: 'gemini: tool_call_id',
    path: '/v1/chat/completions',
    body: { model: 'gemini-x', messages: [user, { role: 'tool', tool_call_id: M, content: 'r' }] },
    quotes: true,
  },
  { name: 'gemini: tool type', path: '/v1/chat/completions', body: chat('gemini-x', { tools: [{ type: M, function: { name: 'f' } }] }), quotes: true },
  // Messages translated to the common format
  {
    name: 'messages: content block type',
    path: '/v1/messages',
    body: { model: 'gpt-x', max_tokens: 5, messages: [{ role: 'user', content: [{ type: M }] }] },
    quotes: true,
  },
  // Responses translated
  {
    name: 'responses: call_id of an output',
    path: '/v1/responses',
    body: { model: 'gpt-x', input: [{ type: 'function_call_output', call_id: M, output: 'r' }] },
    quotes: true,
  },
  {
    name: 'responses: content part type',
    path: '/v1/responses',
    body: { model: 'gpt-x', input: [{ role: 'user', content: [{ type: M }] }] },
    quotes: true,
  },
  {
    name: 'responses: a function name used twice',
    path: '/v1/responses',
    body: {
      model: 'gpt-x',
      input: 'hi',
      tools: [
        { type: 'function', name: M, parameters: { type: 'object' } },
        { type: 'function', name: M, parameters: { type: 'object' } },
      ],
    },
    quotes: true,
  },
  {
    name: 'responses: tool_choice names no tool',
    path: '/v1/responses',
    body: { model: 'gpt-x', input: 'hi', tool_choice: { type: 'function', name: M } },
    quotes: true,
  },
  {
    name: 'responses: "required" with only tools that cannot run',
    path: '/v1/responses',
    body: { model: 'gpt-x', input: 'hi', tools: [{ type: 'mcp', server_label: M, server_url: 'https://example.invalid/mcp' }], tool_choice: 'required' },
    quotes: true,
  },
  {
    name: 'responses: unknown previous_response_id',
    path: '/v1/responses',
    body: { model: 'gpt-x', input: 'hi', previous_response_id: M },
    status: 404,
    quotes: true,
  },
  // the Gemini API translated
  {
    name: 'gemini route: role',
    path: '/v1beta/models/gpt-x:generateContent',
    body: { contents: [{ role: M, parts: [{ text: 'hi' }] }] },
    quotes: true,
  },
  {
    name: 'gemini route: functionResponse name',
    path: '/v1beta/models/gpt-x:generateContent',
    body: { contents: [{ role: 'user', parts: [{ functionResponse: { name: M, response: {} } }] }] },
    quotes: true,
  },
  {
    name: 'gemini route: function calling mode',
    path: '/v1beta/models/gpt-x:generateContent',
    body: {
      contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
      tools: [{ functionDeclarations: [{ name: 'f' }] }],
      toolConfig: { functionCallingConfig: { mode: M } },
    },
    quotes: true,
  },
  {
    name: 'gemini route: allowed function name',
    path: '/v1beta/models/gpt-x:generateContent',
    body: {
      contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
      tools: [{ functionDeclarations: [{ name: 'f' }] }],
      toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [M] } },
    },
    quotes: true,
  },
  // an upstream's own 400 quoting the request: passed on to the client, summarized in the stores
  { name: 'upstream 400 quoting the request', path: '/v1/chat/completions', body: chat('gpt-x', { user: `upstream-400 ${M}` }), quotes: true },
];

async function send(gw: TestGateway, b: Bad): Promise<{ status: number; text: string }> {
  const r = await fetch(`${gw.url}${b.path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': b.contentType ?? 'application/json' },
    body: typeof b.body === 'string' ? b.body : JSON.stringify(b.body),
  });
  return { status: r.status, text: await r.text() };
}

/** The request log once it holds `n` entries. */
async function requestLog(gw: TestGateway, n: number): Promise<Array<{ error_message: string | null; status: number }>> {
  for (let i = 0; ; i++) {
    const r = await fetch(`${gw.url}/v1/requests?limit=1000`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const entries = (await r.json()) as Array<{ error_message: string | null; status: number }>;
    if (entries.length >= n || i >= 100) return entries;
    await new Promise((res) => setTimeout(res, 20));
  }
}

async function gateway(t: import('ava').ExecutionContext, logBodies: boolean): Promise<TestGateway> {
  // every other request is refused by gw before any upstream call
  const up = await startUpstream((r, res) =>
    replyJson(res, 400, {
      error: { message: `Invalid value for 'user': '${r.json.user}'`, type: 'invalid_request_error', param: 'user', code: 'invalid_value' },
    }),
  );
  const gw = await startGateway(
    baseConfig(`[providers.compat]
api_key = "sk-compat-0123456789abcdef"
base_url = "${up.origin}/v1"
max_retries = 0
models = ["gpt-x"]

[providers.anthropic]
api_key = "sk-ant-0123456789abcdef"
base_url = "${up.origin}"
models = ["claude-x"]

[providers.gemini]
api_key = "gk-0123456789abcdef"
base_url = "${up.origin}"
models = ["gemini-x"]

[extensions.request_log]
log_bodies = ${logBodies}
[extensions.logging]
level = "info"
`),
    { level: 'debug' },
  );
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  return gw;
}

test('a value at fault may be quoted to the client, never kept in /v1/requests or the log lines', async (t) => {
  const gw = await gateway(t, false);
  for (const b of BAD) {
    const r = await send(gw, b);
    t.is(r.status, b.status ?? 400, `${b.name}: ${r.text}`);
    if (b.quotes) t.true(r.text.includes(HEAD), `${b.name}: the client sees its own value: ${r.text}`);
  }
  const entries = await requestLog(gw, BAD.length);
  t.is(entries.length, BAD.length);
  for (const e of entries) {
    t.truthy(e.error_message, 'every entry says what failed');
    t.false(e.error_message!.includes(HEAD), e.error_message!);
  }
  const lines = gw.logs.join('');
  t.true(lines.includes('request failed'));
  t.false(
    lines.includes(HEAD),
    lines.split('\n').find((l) => l.includes(HEAD)),
  );
  // what the stores say instead: the field and the rule
  const messages = entries.map((e) => e.error_message);
  t.true(messages.includes('messages[0].role: not supported by anthropic models (use system, developer, user, assistant or tool)'));
  t.true(messages.includes('messages[1].tool_calls[0].function.arguments is not valid JSON'));
  t.true(messages.includes('input[0].call_id: no function_call with this call_id precedes this output'));
  t.true(
    messages.includes(
      'provider compat refused the request (HTTP 400, invalid_value, param user); its message may quote the request and is kept with bodies only',
    ),
  );
});

test('with log_bodies = true the request log keeps the message as the client got it', async (t) => {
  const gw = await gateway(t, true);
  const quoting = BAD.filter((b) => b.quotes && b.contentType === undefined);
  for (const b of quoting) await send(gw, b);
  const entries = await requestLog(gw, quoting.length);
  t.is(entries.length, quoting.length);
  for (const e of entries) t.true(e.error_message?.includes(HEAD), JSON.stringify(e));
  // the logging extension has no bodies below trace: its lines stay without the value
  t.false(gw.logs.join('').includes(HEAD));
});
