/**
 * An upstream that quotes gw's own provider key in its error text: the key must reach neither
 * the client's answer nor the request log (`/v1/requests`) nor the log lines, whole, after
 * `Bearer`, or masked, on every kind (file, runtime-created and reloaded providers) and every
 * route, native passthroughs included, for error statuses and for error events inside a stream.
 *
 * The echo forms are the vendors' own: OpenAI's `Incorrect API key provided: sk-abc1****…wxyz`
 * (the first characters and the last four), Google's `Consumer 'api_key:AIza…' has been
 * suspended` (whole), and self-hosted servers and proxies quoting `Authorization: Bearer …`.
 * Each mock answer carries all three, in the error shape of the route's vendor.
 */
import test from 'ava';
import type { ServerResponse } from 'node:http';
import { writeFile } from 'node:fs/promises';
import { ADMIN_TOKEN, baseConfig, KEY, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { replyJson, startUpstream, type Received } from '../helpers/upstream.ts';

/** One key per provider: a shared head (`sk-live-`) and a tail (`Tl4x`) found nowhere else in gw's output. */
const K = {
  openai: 'sk-live-openai-7fK2qP9wXv3mB8nR5tY1Tl4x',
  openai2: 'sk-live-openai2-Hj6vN3cQ8rW2zK5pL9Tl4x',
  anthropic: 'sk-live-anthropic-4dG8hJ2kM6nP0qS3Tl4x',
  gemini: 'AIzaSyLiveGemini-Qw3Er5Ty7Ui9Op1As2Tl4x',
  azure: 'sk-live-azure-5b9c3e7f1a2d4c6e8f0aTl4x',
  dashscope: 'sk-live-dashscope-8Zx6Cv4Bn2Mq7Wr1Tl4x',
  zhipu: '5f3c9a7e1b2d4f6a8c0e.sk-live-zhipu-Rt4Yu6Tl4x',
  vllm: 'sk-live-vllm-3Gh5Jk7Lz9Xc1Vb2Nm4Tl4x',
  runtime: 'sk-live-runtime-6Pq8Rs0Tu2Vw4Xy6Za8Tl4x',
  discovered: 'sk-live-discovered-1Ab3Cd5Ef7Gh9Ij0Tl4x',
};
const ALL = Object.values(K);

/** Every form of every key that must never come out of gw. */
function leaks(text: string): string[] {
  const found: string[] = [];
  for (const k of ALL) {
    if (text.includes(k)) found.push(`whole ${k}`);
    if (text.includes(masked(k))) found.push(`masked ${masked(k)}`);
  }
  // the shared head and tail: any other quote of a key (a prefix cut by a length limit, a mask gw does not know)
  if (text.includes('sk-live')) found.push('head sk-live');
  if (text.includes('Tl4x')) found.push('tail Tl4x');
  if (text.includes('AIzaSyLive')) found.push('head AIzaSyLive');
  return found;
}

/** OpenAI's mask: the first 7 characters, stars, the last 4. */
function masked(k: string): string {
  return `${k.slice(0, 7)}${'*'.repeat(24)}${k.slice(-4)}`;
}

/** The credential the upstream was sent, whatever header the kind uses. */
function credential(r: Received): string {
  const h = r.headers;
  const bearer = typeof h.authorization === 'string' ? h.authorization.replace(/^Bearer /, '') : undefined;
  return String(h['x-api-key'] ?? h['api-key'] ?? h['x-goog-api-key'] ?? bearer ?? '');
}

/** The error text, quoting the key in the three forms. */
function echo(key: string): string {
  return `Incorrect API key provided: ${masked(key)}. Authorization: Bearer ${key}. Consumer 'api_key:${key}' has been suspended.`;
}

type Vendor = 'openai' | 'messages' | 'gemini' | 'responses';

function vendorOf(url: string): Vendor {
  if (url.includes('/v1/messages')) return 'messages';
  if (url.startsWith('/v1beta/')) return 'gemini';
  if (url.endsWith('/responses')) return 'responses';
  return 'openai';
}

/** The vendor's error body for `status`. */
function errorBody(v: Vendor, status: number, message: string): unknown {
  if (v === 'messages')
    return { type: 'error', error: { type: status === 401 ? 'authentication_error' : status === 400 ? 'invalid_request_error' : 'api_error', message } };
  if (v === 'gemini')
    return { error: { code: status, message, status: status === 401 ? 'UNAUTHENTICATED' : status === 400 ? 'INVALID_ARGUMENT' : 'INTERNAL' } };
  return { error: { message, type: status === 400 ? 'invalid_request_error' : 'server_error', param: null, code: status === 401 ? 'invalid_api_key' : null } };
}

/** A stream that starts well, then fails with an error event quoting the key, in the vendor's framing. */
function failingStream(v: Vendor, key: string, model: string): string {
  const msg = echo(key);
  const ev = (data: unknown, event?: string) => `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;
  switch (v) {
    case 'messages':
      return (
        ev(
          {
            type: 'message_start',
            message: { id: 'msg_1', type: 'message', role: 'assistant', model, content: [], stop_reason: null, usage: { input_tokens: 3, output_tokens: 1 } },
          },
          'message_start',
        ) +
        ev({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }, 'content_block_start') +
        ev({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } }, 'content_block_delta') +
        ev({ type: 'error', error: { type: 'api_error', message: msg } }, 'error')
      );
    case 'gemini':
      return ev({ candidates: [{ content: { role: 'model', parts: [{ text: 'Hi' }] } }] }) + ev({ error: { code: 500, message: msg, status: 'INTERNAL' } });
    case 'responses':
      return (
        ev(
          { type: 'response.created', sequence_number: 0, response: { id: 'resp_1', object: 'response', status: 'in_progress', model, output: [] } },
          'response.created',
        ) +
        ev(
          { type: 'response.output_text.delta', sequence_number: 1, item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Hi' },
          'response.output_text.delta',
        ) +
        ev({ type: 'error', sequence_number: 2, code: 'server_error', message: msg, param: null }, 'error')
      );
    default:
      return (
        ev({
          id: 'c1',
          object: 'chat.completion.chunk',
          created: 1,
          model,
          choices: [{ index: 0, delta: { role: 'assistant', content: 'Hi' }, finish_reason: null }],
        }) + ev({ error: { message: msg, type: 'server_error' } })
      );
  }
}

/** What the mock upstream does next: answer every call with this status, or stream and fail. */
let mode: number | 'stream' = 401;

function upstream(r: Received, res: ServerResponse): void {
  const key = credential(r);
  const v = vendorOf(r.url);
  if (mode === 'stream') {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(failingStream(v, key, String(r.json?.model ?? 'm')));
    return;
  }
  replyJson(res, mode, errorBody(v, mode, echo(key)));
}

/** One section per kind: name, key, then its origins and models (`@` is the upstream's origin). */
const SECTIONS: Array<[name: string, key: keyof typeof K, lines: string]> = [
  ['openai', 'openai', 'base_url = "@/v1"\nmodels = ["oa-model", "oa-embed"]'],
  ['anthropic', 'anthropic', 'base_url = "@"\nmodels = ["claude-x"]'],
  ['gemini', 'gemini', 'base_url = "@"\nmodels = ["gemini-x"]'],
  ['azure', 'azure', 'base_url = "@"\nmodels = ["az-deploy"]'],
  ['dashscope', 'dashscope', 'base_url = "@/compatible-mode/v1"\nmessages_base_url = "@/apps/anthropic"\nmodels = ["qwen-x"]'],
  ['zhipu', 'zhipu', 'base_url = "@/api/paas/v4"\nmessages_base_url = "@/api/anthropic"\nmodels = ["glm-x"]'],
  ['vllm', 'vllm', 'base_url = "@/v1"\nmodels = ["llama-x"]'],
];

/** Every kind on `origin`, no retries; `openaiKey` replaces the openai section's key (a reload). */
function providers(origin: string, openaiKey = K.openai): string {
  const sections = SECTIONS.map(
    ([name, key, lines]) => `[providers.${name}]\napi_key = "${name === 'openai' ? openaiKey : K[key]}"\nmax_retries = 0\n${lines.replaceAll('@', origin)}\n`,
  );
  return `${sections.join('\n')}\n[extensions.request_log]\n[extensions.logging]\nlevel = "info"\n`;
}

/** One client call: route, body; `stream` asks for SSE. */
interface Call {
  name: string;
  path: string;
  body: Record<string, unknown>;
}

const chat = (model: string, stream = false): Call => ({
  name: `chat ${model}${stream ? ' stream' : ''}`,
  path: '/v1/chat/completions',
  body: { model, messages: [{ role: 'user', content: 'hi' }], stream },
});
const messages = (model: string, stream = false): Call => ({
  name: `messages ${model}${stream ? ' stream' : ''}`,
  path: '/v1/messages',
  body: { model, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }], stream },
});
const responses = (model: string, stream = false): Call => ({
  name: `responses ${model}${stream ? ' stream' : ''}`,
  path: '/v1/responses',
  body: { model, input: 'hi', stream },
});
const gemini = (model: string, stream = false): Call => ({
  name: `gemini ${model}${stream ? ' stream' : ''}`,
  path: `/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
  body: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
});

/** Every kind on chat; every native passthrough; the translated routes too. */
const ERROR_CALLS: Call[] = [
  ...['oa-model', 'claude-x', 'gemini-x', 'az-deploy', 'qwen-x', 'glm-x', 'llama-x'].map((m) => chat(m)),
  chat('oa-model', true),
  chat('claude-x', true),
  { name: 'embeddings oa-embed', path: '/v1/embeddings', body: { model: 'oa-embed', input: 'hi' } },
  messages('claude-x'),
  messages('qwen-x'),
  messages('glm-x', true),
  messages('llama-x'),
  responses('oa-model'),
  responses('az-deploy', true),
  responses('claude-x'),
  gemini('gemini-x'),
  gemini('gemini-x', true),
  gemini('llama-x'),
];

/** Streams that fail after their first byte: forwarded error events (passthroughs) and gw's own error frames (translations). */
const STREAM_CALLS: Call[] = [messages('claude-x', true), gemini('gemini-x', true), responses('oa-model', true), chat('llama-x', true), chat('claude-x', true)];

async function send(gw: TestGateway, c: Call): Promise<{ status: number; text: string }> {
  const r = await fetch(`${gw.url}${c.path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(c.body),
  });
  return { status: r.status, text: await r.text() };
}

async function admin(gw: TestGateway, method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  const r = await fetch(`${gw.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: r.status, text: await r.text() };
}

/** The request log once it holds `n` entries (they are written just after each answer). */
async function requestLog(gw: TestGateway, n: number): Promise<string> {
  for (let i = 0; ; i++) {
    const r = await admin(gw, 'GET', '/v1/requests?limit=1000');
    if ((JSON.parse(r.text) as unknown[]).length >= n || i >= 100) return r.text;
    await new Promise((res) => setTimeout(res, 20));
  }
}

test('a provider key an upstream quotes (whole, after Bearer, masked) reaches neither the answer, nor /v1/requests, nor the log', async (t) => {
  const up = await startUpstream(upstream);
  const gw = await startGateway(baseConfig(providers(up.origin)), { level: 'debug' });
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  // a runtime provider counts as soon as it is created
  t.is(
    (await admin(gw, 'POST', '/v1/admin/providers', { name: 'rt', kind: 'openai', api_key: K.runtime, base_url: `${up.origin}/v1`, models: ['rt-model'] }))
      .status,
    201,
  );
  const calls = [...ERROR_CALLS, chat('rt-model')];

  let sent = 0;
  for (const status of [401, 400, 500]) {
    mode = status;
    for (const c of calls) {
      const r = await send(gw, c);
      sent++;
      const what = `${c.name} on an upstream ${status}`;
      t.deepEqual(leaks(r.text), [], what);
      // the upstream's text did come through, the key cut out of it
      t.true(r.text.includes('[redacted]'), `${what}: ${r.text}`);
      t.is(r.status, status === 400 ? 400 : 502, what);
    }
  }
  mode = 'stream';
  for (const c of STREAM_CALLS) {
    const r = await send(gw, c);
    sent++;
    t.is(r.status, 200, c.name);
    t.true(r.text.includes('Hi'), `${c.name}: the stream started`);
    t.deepEqual(leaks(r.text), [], `${c.name} failing mid-stream`);
    t.true(r.text.includes('[redacted]'), `${c.name}: ${r.text}`);
  }

  // a key a reload brings in counts from the reload on
  await writeFile(gw.configPath, baseConfig(providers(up.origin, K.openai2)));
  t.is((await admin(gw, 'POST', '/v1/admin/reload')).status, 200);
  mode = 401;
  const reloaded = await send(gw, chat('oa-model'));
  sent++;
  t.deepEqual(leaks(reloaded.text), [], 'after the reload');
  t.true(reloaded.text.includes('[redacted]'));

  // a provider being created: its discovery fails on an answer quoting the new key
  const created = await admin(gw, 'POST', '/v1/admin/providers', { name: 'disc', kind: 'openai', api_key: K.discovered, base_url: `${up.origin}/v1` });
  t.is(created.status, 502);
  t.deepEqual(leaks(created.text), [], 'failed discovery');
  t.true(created.text.includes('[redacted]'), created.text);

  const log = await requestLog(gw, sent);
  t.is((JSON.parse(log) as unknown[]).length, sent);
  t.deepEqual(leaks(log), [], '/v1/requests');
  // 401s and 5xx keep the upstream's (redacted) message; upstream 400s keep code and field only
  t.true(log.includes('[redacted]'));
  const lines = gw.logs.join('');
  t.true(lines.includes('request failed'), 'the logging extension wrote its lines');
  t.deepEqual(leaks(lines), [], 'log lines');
});
