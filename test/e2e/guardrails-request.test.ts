/**
 * Guardrails on requests (issue 41), through real sockets: every client format (chat
 * completions, Responses, Messages, Gemini) against a native and a translated provider. A
 * prompt carrying an AWS key, an Anthropic key, a GitHub token, a PEM key, an email and a
 * Luhn-valid card reaches the vendor masked (the Luhn-invalid card untouched), or is refused
 * with 400 `guardrail_blocked` in the format's own error shape with nothing sent upstream; a
 * tool result holding a `.env` file is masked; model names, ids and tool names stay as sent.
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import test, { type ExecutionContext } from 'ava';
import OpenAI from 'openai';
import { ADMIN_TOKEN, KEY, KEY2, type TestGateway } from '../helpers/gateway.ts';
import { AWS_SECRET, SECRETS } from '../helpers/guardrails-secrets.ts';
import { setupOtel, post as otelPost, traceOf } from './otel-helpers.ts';
import { replyJson } from '../helpers/upstream.ts';
import { adminJson } from '../helpers/ext-helpers.ts';
import { FORMAT_CASES, guardedGateway, MODELS } from '../helpers/guardrails-upstream.ts';

const { chat: CHAT, claude: CLAUDE, gemini: GEMINI } = MODELS;
/** A key that opts out of the pii check. */
const KEY3 = 'sk-test-key-third-0123456789abcdef';

const EMAIL = 'dana.whitfield@acme-robotics.com';
const CARD = '4111 1111 1111 1111';
/** One digit off: fails the Luhn check, so it is no card number. */
const NOT_CARD = '4111 1111 1111 1112';
const AWS_ID = SECRETS[0]!.value;
const PROMPT = `${SECRETS.map((s) => `${s.kind}: ${s.value}`).join('\n')}\nWrite to ${EMAIL}, card ${CARD}, order ref ${NOT_CARD}.`;
const DOT_ENV = `# .env\nAWS_ACCESS_KEY_ID=${AWS_ID}\nAWS_SECRET_ACCESS_KEY=${AWS_SECRET}\nGITHUB_TOKEN=${SECRETS[2]!.value}\nLOG_LEVEL=debug\n`;
/** A tool name and call id with digits and dashes, as the masks must leave them. */
const TOOL = 'read_file-v2';
const CALL_ID = 'call_2025-09-29_0001';

const CONFIG = `
[keys.third]
key = "${KEY3}"
guardrails = ["-pii"]

[extensions.request_log]
log_bodies = true
body_max_bytes = 65536

[extensions.logging]
level = "trace"

[extensions.guardrails.checks.secrets]
type = "secrets"
action = "mask"
phase = ["request"]

[extensions.guardrails.checks.pii]
type = "pii"
action = "mask"
entities = ["email", "credit_card"]
phase = ["request"]

[extensions.guardrails.checks.no_secrets]
type = "secrets"
action = "block"
phase = ["request"]
keys = ["second"]
`;

const setup = (t: ExecutionContext) => guardedGateway(t, CONFIG);

/** Each client format: its path for a model, and a body whose user turn is `prompt` and whose tool result is `result`. */
const FORMATS = {
  chat: {
    path: () => '/v1/chat/completions',
    body: (model: string, prompt: string, result: string) => ({
      model,
      messages: [
        { role: 'user', content: prompt },
        { role: 'assistant', content: null, tool_calls: [{ id: CALL_ID, type: 'function', function: { name: TOOL, arguments: '{"path":".env"}' } }] },
        { role: 'tool', tool_call_id: CALL_ID, content: result },
      ],
      tools: [
        { type: 'function', function: { name: TOOL, description: 'Reads a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } } },
      ],
    }),
  },
  messages: {
    path: () => '/v1/messages',
    body: (model: string, prompt: string, result: string) => ({
      model,
      max_tokens: 64,
      messages: [
        { role: 'user', content: prompt },
        { role: 'assistant', content: [{ type: 'tool_use', id: CALL_ID, name: TOOL, input: { path: '.env' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: CALL_ID, content: result }] },
      ],
      tools: [{ name: TOOL, description: 'Reads a file', input_schema: { type: 'object', properties: { path: { type: 'string' } } } }],
    }),
  },
  responses: {
    path: () => '/v1/responses',
    body: (model: string, prompt: string, result: string) => ({
      model,
      store: false,
      input: [
        { role: 'user', content: prompt },
        { type: 'function_call', call_id: CALL_ID, name: TOOL, arguments: '{"path":".env"}' },
        { type: 'function_call_output', call_id: CALL_ID, output: result },
      ],
      tools: [{ type: 'function', name: TOOL, description: 'Reads a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } }],
    }),
  },
  gemini: {
    path: (model: string) => `/v1beta/models/${model}:generateContent`,
    body: (_model: string, prompt: string, result: string) => ({
      contents: [
        { role: 'user', parts: [{ text: prompt }] },
        { role: 'model', parts: [{ functionCall: { name: TOOL, args: { path: '.env' } } }] },
        { role: 'user', parts: [{ functionResponse: { name: TOOL, response: { content: result } } }] },
      ],
      tools: [
        { functionDeclarations: [{ name: TOOL, description: 'Reads a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } }] },
      ],
    }),
  },
} as const;

const CASES = FORMAT_CASES;

async function post(gw: TestGateway, path: string, body: unknown, key = KEY): Promise<{ status: number; headers: Headers; json: any }> {
  const res = await fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'x-api-key': key, 'x-goog-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, json: await res.json() };
}

const RAW = [...SECRETS.map((s) => s.value), AWS_SECRET, EMAIL, CARD];

test('mask: every format, native and translated, reaches the vendor with each secret, the email and the Luhn-valid card masked, the rest as sent', async (t) => {
  const { gw, up } = await setup(t);
  for (const { format, model, upstream } of CASES) {
    const f = FORMATS[format];
    const before = up.received.length;
    const res = await post(gw, f.path(model), f.body(model, PROMPT, DOT_ENV));
    const label = `${format} → ${model}`;
    t.is(res.status, 200, `${label}: ${JSON.stringify(res.json)}`);
    t.is(res.headers.get('x-gw-guardrails'), 'secrets, pii', label);
    t.is(up.received.length, before + 1, label);
    const sent = up.received.at(-1)!;
    t.is(sent.url.split('?')[0], upstream, label);
    for (const raw of RAW) t.false(sent.body.includes(JSON.stringify(raw).slice(1, -1)), `${label}: a raw value reached the vendor`);
    for (const s of SECRETS) t.true(sent.body.includes(`[SECRET:${s.entity}]`), `${label}: ${s.entity}`);
    t.true(sent.body.includes('[EMAIL]') && sent.body.includes('[CREDIT_CARD]'), label);
    t.true(sent.body.includes(NOT_CARD), `${label}: a Luhn-invalid number is no card`);
    // the .env's harmless line, the names and the ids are as sent
    t.true(sent.body.includes('LOG_LEVEL=debug'), label);
    t.true(sent.body.includes(TOOL), label);
    if (!upstream.includes(':generateContent')) t.true(sent.body.includes(JSON.stringify(model)) || sent.body.includes(model), label);
  }
});

test('block: a check scoped to a key refuses its request with 400 guardrail_blocked in the format’s error shape; nothing goes upstream', async (t) => {
  const { gw, up } = await setup(t);
  const shapes: Record<string, (json: any) => { code: unknown; message: string }> = {
    chat: (json) => ({ code: json.error.code, message: json.error.message }),
    responses: (json) => ({ code: json.error.code, message: json.error.message }),
    messages: (json) => ({ code: json.type === 'error' ? json.error.type : undefined, message: json.error.message }),
    gemini: (json) => ({ code: json.error.status, message: json.error.message }),
  };
  for (const { format, model } of CASES) {
    const f = FORMATS[format];
    const res = await post(gw, f.path(model), f.body(model, `deploy with ${SECRETS[2]!.value}`, 'ok'), KEY2);
    const label = `${format} → ${model}`;
    t.is(res.status, 400, label);
    const { code, message } = shapes[format]!(res.json);
    t.is(code, format === 'messages' ? 'invalid_request_error' : format === 'gemini' ? 'INVALID_ARGUMENT' : 'guardrail_blocked', label);
    t.is(message, "blocked by guardrail 'no_secrets': github-token found in the request", label);
    t.false(JSON.stringify(res.json).includes(SECRETS[2]!.value), label);
    // the masking check found it too (config order): each check that found something is named
    t.is(res.headers.get('x-gw-guardrails'), 'secrets, no_secrets', label);
  }
  t.is(up.received.length, 0);
});

test('the official SDKs see the block as the 400 they know; the request log and /metrics record each outcome without the text', async (t) => {
  const { gw, up } = await setup(t);
  const openai = new OpenAI({ baseURL: gw.baseURL, apiKey: KEY2, maxRetries: 0 });
  const err = await t.throwsAsync(openai.chat.completions.create({ model: CHAT, messages: [{ role: 'user', content: `key ${AWS_ID}` }] }));
  t.like(err, { status: 400, code: 'guardrail_blocked' });
  const stream = await t.throwsAsync(openai.chat.completions.create({ model: CHAT, stream: true, messages: [{ role: 'user', content: `key ${AWS_ID}` }] }));
  t.like(stream, { status: 400, code: 'guardrail_blocked' }, 'stream: true skips no check');
  const anthropic = new Anthropic({ baseURL: gw.url, apiKey: KEY2, maxRetries: 0 });
  const refused = await t.throwsAsync(anthropic.messages.create({ model: CLAUDE, max_tokens: 16, messages: [{ role: 'user', content: `key ${AWS_ID}` }] }));
  t.true(refused instanceof Anthropic.BadRequestError);
  t.regex(refused!.message, /blocked by guardrail 'no_secrets': aws-access-key found in the request/);
  const google = new GoogleGenAI({ apiKey: KEY2, httpOptions: { baseUrl: gw.url } });
  const gemErr = await t.throwsAsync(google.models.generateContent({ model: GEMINI, contents: `key ${AWS_ID}` }));
  t.regex(gemErr!.message, /guardrail 'no_secrets'/);
  t.is(up.received.length, 0);

  // a key that opts out of pii: its email goes as sent, its secrets masked
  const third = await post(gw, '/v1/chat/completions', { model: CHAT, messages: [{ role: 'user', content: `mail ${EMAIL}, key ${AWS_ID}` }] }, KEY3);
  t.is(third.status, 200);
  t.true(up.received.at(-1)!.body.includes(EMAIL));
  t.false(up.received.at(-1)!.body.includes(AWS_ID));
  t.is(third.headers.get('x-gw-guardrails'), 'secrets');

  // the request log: check, phase, action, entity, count; never the value
  let entries: any[] = [];
  for (let i = 0; i < 50 && entries.length < 5; i++) {
    await new Promise((r) => setTimeout(r, 20));
    entries = (await (await fetch(`${gw.url}/v1/requests?limit=10`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json()) as any[];
  }
  const newest = entries[0];
  t.deepEqual(newest.guardrails, [{ check: 'secrets', phase: 'request', action: 'mask', entity: 'aws-access-key', count: 1 }]);
  t.deepEqual(entries.find((e) => e.route === 'messages').guardrails, [
    { check: 'secrets', phase: 'request', action: 'mask', entity: 'aws-access-key', count: 1 },
    { check: 'no_secrets', phase: 'request', action: 'block', entity: 'aws-access-key', count: 1 },
  ]);
  t.false(JSON.stringify(entries).includes(AWS_ID));
  // redact_stored (on by default): the bodies gw keeps went through the checks' detectors
  t.false(JSON.stringify(entries).includes(EMAIL));
  t.regex(newest.request_body, /\[redacted:aws[-_]access[-_]key.*\[redacted:email\]|\[redacted:email\].*\[redacted:aws[-_]access[-_]key/);
  const traced = gw.logs.filter((line) => line.includes('"request content"'));
  t.true(traced.length > 0);
  for (const line of traced) t.false(line.includes(AWS_ID) || line.includes(EMAIL), line);
  const metrics = await (await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text();
  t.regex(metrics, /gw_guardrail_hits_total\{check="no_secrets",phase="request",action="block"\} 4/);
  t.regex(
    metrics,
    /gw_guardrail_hits_total\{check="secrets",phase="request",action="mask"\} 5/,
    'the mask check counts what it found in the blocked requests too',
  );
});

test('the key setting through the admin API: a runtime key created with a check scoped to others gets it; a PATCH opting out takes effect at once', async (t) => {
  const { gw, up } = await setup(t);
  const created = await adminJson(gw, 'POST', '/v1/admin/keys', { name: 'contractor', guardrails: ['no_secrets'] });
  t.is(created.status, 201, JSON.stringify(created.body));
  t.deepEqual(created.body.guardrails, ['no_secrets']);
  const ask = () => post(gw, '/v1/chat/completions', { model: CHAT, messages: [{ role: 'user', content: `mail ${EMAIL} key ${AWS_ID}` }] }, created.body.key);
  const blocked = await ask();
  t.is(blocked.status, 400);
  t.is(blocked.json.error.code, 'guardrail_blocked');
  t.is(up.received.length, 0);

  const patched = await adminJson(gw, 'PATCH', '/v1/admin/keys/contractor', { guardrails: ['-no_secrets', '-secrets'] });
  t.is(patched.status, 200, JSON.stringify(patched.body));
  const open = await ask();
  t.is(open.status, 200);
  t.true(up.received.at(-1)!.body.includes(AWS_ID), 'opted out of both secrets checks');
  t.false(up.received.at(-1)!.body.includes(EMAIL), 'the pii check still applies');
  t.is(open.headers.get('x-gw-guardrails'), 'pii');
  const refused = await adminJson(gw, 'PATCH', '/v1/admin/keys/contractor', { guardrails: ['Secrets'] });
  t.is(refused.status, 400);
  t.regex(JSON.stringify(refused.body), /guardrails/);
});

test('otel: the request span names the checks that found something; captured content went through their detectors (redact_stored)', async (t) => {
  const { rx, gw } = await setupOtel(
    t,
    (_r, res) =>
      replyJson(res, 200, {
        id: 'c1',
        object: 'chat.completion',
        created: 1,
        model: CHAT,
        choices: [{ index: 0, message: { role: 'assistant', content: `Noted: ${EMAIL}` }, finish_reason: 'stop' }],
      }),
    (origin) => `[providers.oa]\nkind = "openai"\napi_key = "sk-o-0123456789"\nbase_url = "${origin}/v1"\nmax_retries = 0\nmodels = ["${CHAT}"]\n`,
    { otel: 'capture_content = true', extra: '[extensions.guardrails.checks.pii]\ntype = "pii"\naction = "monitor"\nentities = ["email"]\n' },
  );
  const res = await otelPost(`${gw.baseURL}/chat/completions`, { model: CHAT, messages: [{ role: 'user', content: `write to ${EMAIL}` }] });
  t.is(res.status, 200);
  t.is(res.headers.get('x-gw-guardrails'), 'pii');
  const { server, clients } = await traceOf(rx, res.headers.get('x-gw-trace-id')!, 1);
  t.deepEqual(server.attributes['gw.guardrails'], ['pii']);
  const captured = JSON.stringify(clients[0]!.attributes);
  t.true(captured.includes('[redacted:email]'), captured);
  t.false(captured.includes(EMAIL));
});
