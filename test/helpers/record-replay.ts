/**
 * Record-and-replay tests' pieces: one mock upstream that speaks every wire gw calls (chosen by
 * the path: chat completions, Responses, Messages, Gemini, embeddings, token counting) with
 * recorded vendor payloads, each answer carrying headers no cassette may keep (a cookie, a
 * project and an organization id); the provider sections of every kind pointed at it; and the
 * official clients' calls on every client format, each reduced to what a user compares — text,
 * tool calls (ids and arguments), the number of stream events, usage.
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI, type Tool as GeminiTool } from '@google/genai';
import OpenAI from 'openai';
import { fixture, replyJson, replySse, startUpstream, type MockUpstream, type Received } from './upstream.ts';
import type { ServerResponse } from 'node:http';
import { type ClaudeCodeResult, runClaudeCode } from './claude-code.ts';
import { KEY } from './gateway.ts';

/** Response headers the mock adds to every answer: none of their values may reach a cassette. */
export const LEAKY_HEADERS = {
  'set-cookie': 'session=cookie-secret-value-42; HttpOnly',
  'openai-project': 'proj_project-secret-id-42',
  'openai-organization': 'org-organization-secret-42',
  'anthropic-organization-id': 'anthropic-org-secret-42',
  'x-request-id': 'req_upstream_1',
};

const CHAT_JSON = fixture('openai/spec-examples/chat.functions.response.json');
const CHAT_SSE = fixture('openai/vercel-ai/chat.stream.tool-call-deltas.sse');
const MESSAGES_JSON = fixture('anthropic/vercel-ai/anthropic-tool-no-args.json');
const MESSAGES_SSE = fixture('anthropic/anthropic-sdk-typescript/tool_use.sse');
const GEMINI_JSON = fixture('gemini/vercel-ai/google-tool-call.json');
const GEMINI_SSE = fixture('gemini/vercel-ai/google-text.sse');
const RESPONSES_JSON = fixture('responses/spec-examples/functions.response.json');
/** A recorded Responses stream (one event per line) as the SSE the API sends: `event:` named, no terminator. */
const RESPONSES_SSE = fixture('responses/vercel-ai/issue-19493-gpt-5.1-tool-call.chunks.txt')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => `event: ${(JSON.parse(line) as { type: string }).type}\ndata: ${line}\n\n`)
  .join('');
const EMBEDDINGS_JSON = fixture('openai/openai-node/embeddings-float-response.json');

/** Answers by path, as the vendor at that path would. */
export function answer(r: Received, res: ServerResponse): Promise<void> | void {
  const path = r.url.split('?')[0]!;
  const headers = LEAKY_HEADERS;
  const stream = r.json?.stream === true || path.endsWith(':streamGenerateContent');
  if (path.endsWith('/messages/count_tokens')) return replyJson(res, 200, { input_tokens: 42 }, headers);
  if (path.endsWith('/v1/messages')) return stream ? replySse(res, MESSAGES_SSE, { headers }) : replyJson(res, 200, MESSAGES_JSON, headers);
  if (path.endsWith('/chat/completions')) return stream ? replySse(res, CHAT_SSE, { headers }) : replyJson(res, 200, CHAT_JSON, headers);
  if (path.endsWith('/responses')) return stream ? replySse(res, RESPONSES_SSE, { headers }) : replyJson(res, 200, RESPONSES_JSON, headers);
  if (path.endsWith('/embeddings')) return replyJson(res, 200, EMBEDDINGS_JSON, headers);
  if (path.endsWith(':generateContent')) return replyJson(res, 200, GEMINI_JSON, headers);
  if (path.endsWith(':streamGenerateContent')) return replySse(res, GEMINI_SSE, { headers });
  if (path.endsWith(':countTokens')) return replyJson(res, 200, { totalTokens: 7 }, headers);
  if (path.endsWith(':batchEmbedContents')) return replyJson(res, 200, { embeddings: [{ values: [0.25, -0.5, 0.125] }] }, headers);
  if (path.endsWith(':embedContent')) return replyJson(res, 200, { embedding: { values: [0.25, -0.5, 0.125] } }, headers);
  replyJson(res, 404, { error: { message: `no such path ${path}` } });
}

/** Starts the mock upstream. */
export function startWireUpstream(): Promise<MockUpstream> {
  return startUpstream(answer);
}

/** One provider of the matrix: its section name, kind, model, and its URL settings for the mock at `up`. */
export interface KindCase {
  name: string;
  kind: string;
  model: string;
  /** The provider's api_key: a secret no cassette may hold. */
  apiKey: string;
  urls(up: string): string;
  embeddings: boolean;
}

export const KINDS: readonly KindCase[] = [
  { name: 'oai', kind: 'openai', model: 'gpt-4o-mini', apiKey: 'sk-oai-provider-secret-0001', urls: (up) => `base_url = "${up}/v1"`, embeddings: true },
  {
    name: 'ant',
    kind: 'anthropic',
    model: 'claude-3-5-haiku-20241022',
    apiKey: 'sk-ant-provider-secret-0002',
    urls: (up) => `base_url = "${up}"`,
    embeddings: false,
  },
  { name: 'gem', kind: 'gemini', model: 'gemini-2.0-flash', apiKey: 'gem-provider-secret-00000003', urls: (up) => `base_url = "${up}"`, embeddings: true },
  { name: 'az', kind: 'azure', model: 'gpt-4o', apiKey: 'az-provider-secret-000000004', urls: (up) => `base_url = "${up}"`, embeddings: true },
  {
    name: 'ds',
    kind: 'dashscope',
    model: 'qwen-plus',
    apiKey: 'sk-ds-provider-secret-000005',
    urls: (up) => `base_url = "${up}/compatible-mode/v1"\nmessages_base_url = "${up}/apps/anthropic"`,
    embeddings: true,
  },
  {
    name: 'zp',
    kind: 'zhipu',
    model: 'glm-4.5',
    apiKey: 'zp-provider-secret-000000006',
    urls: (up) => `base_url = "${up}/api/paas/v4"\nmessages_base_url = "${up}/api/anthropic"`,
    embeddings: true,
  },
  { name: 'local', kind: 'vllm', model: 'llama-local', apiKey: 'local-provider-secret-000007', urls: (up) => `base_url = "${up}/v1"`, embeddings: true },
];

/** The recording gateway's provider sections. */
export function liveProviders(up: string, kinds: readonly KindCase[] = KINDS): string {
  return kinds
    .map((k) => `[providers.${k.name}]\nkind = "${k.kind}"\napi_key = "${k.apiKey}"\n${k.urls(up)}\nmodels = ["${k.model}"]\nmax_retries = 0\n`)
    .join('\n');
}

/** The replaying gateway's: every provider a replay of its own recordings. */
export function replayProviders(cassette: string, kinds: readonly KindCase[] = KINDS, extra = ''): string {
  return kinds.map((k) => `[providers.${k.name}]\nkind = "replay"\ncassette = "${cassette}"\nmax_retries = 0\n${extra}`).join('\n');
}

export const WEATHER_TOOL = {
  type: 'function' as const,
  function: {
    name: 'weather',
    description: 'Get the weather',
    parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
  },
};
const GEMINI_TOOLS: GeminiTool[] = [
  { functionDeclarations: [{ name: 'weather', description: 'Get the weather', parametersJsonSchema: WEATHER_TOOL.function.parameters }] },
];

/** What a user compares of one answer. */
export interface Observation {
  call: string;
  text: string;
  tools: Array<{ id: string; name: string; args: string }>;
  /** Stream events or chunks the client received (0 for a whole answer). */
  events: number;
  usage: unknown;
  extra?: unknown;
}

/** gw mints some ids itself (Gemini tool calls have none; translated answers get fresh ids): those differ between any two runs. */
function stable(id: string): string {
  return id.replace(/^call_gw_[A-Za-z0-9]+/, 'call_gw_*');
}

/** Every client format's calls against `gw` for one provider case, in a fixed order. */
export async function observeAll(base: { url: string; key: string }, k: KindCase): Promise<Observation[]> {
  const openai = new OpenAI({ baseURL: `${base.url}/v1`, apiKey: base.key, maxRetries: 0 });
  const anthropic = new Anthropic({ baseURL: base.url, apiKey: base.key, maxRetries: 0 });
  const genai = new GoogleGenAI({ apiKey: base.key, httpOptions: { baseUrl: base.url } });
  const out: Observation[] = [];
  const messages = [{ role: 'user' as const, content: `What is the weather in Boston? (${k.name})` }];

  const chat = await openai.chat.completions.create({ model: k.model, messages, tools: [WEATHER_TOOL] });
  const m = chat.choices[0]!.message;
  out.push({
    call: 'chat',
    text: m.content ?? '',
    tools: (m.tool_calls ?? []).map((c) => ({
      id: stable(c.id),
      name: (c as { function: { name: string } }).function.name,
      args: (c as { function: { arguments: string } }).function.arguments,
    })),
    events: 0,
    usage: chat.usage,
  });

  const chatStream = await openai.chat.completions.create({
    model: k.model,
    messages,
    tools: [WEATHER_TOOL],
    stream: true,
    stream_options: { include_usage: true },
  });
  const streamed: Observation = { call: 'chat-stream', text: '', tools: [], events: 0, usage: undefined };
  for await (const c of chatStream) {
    streamed.events++;
    if (c.usage) streamed.usage = c.usage;
    const d = c.choices[0]?.delta;
    if (d?.content) streamed.text += d.content;
    for (const tc of d?.tool_calls ?? []) {
      const t = (streamed.tools[tc.index] ??= { id: '', name: '', args: '' });
      if (tc.id) t.id = stable(tc.id);
      if (tc.function?.name) t.name += tc.function.name;
      if (tc.function?.arguments) t.args += tc.function.arguments;
    }
  }
  out.push(streamed);

  const resp = await openai.responses.create({
    model: k.model,
    input: messages[0]!.content,
    tools: [{ type: 'function', name: 'weather', parameters: WEATHER_TOOL.function.parameters, strict: false }],
  });
  out.push({
    call: 'responses',
    text: resp.output_text,
    tools: resp.output.flatMap((o) => (o.type === 'function_call' ? [{ id: stable(o.call_id), name: o.name, args: o.arguments }] : [])),
    events: 0,
    usage: resp.usage,
  });

  const respStream = await openai.responses.create({ model: k.model, input: messages[0]!.content, stream: true });
  const rs: Observation = { call: 'responses-stream', text: '', tools: [], events: 0, usage: undefined };
  for await (const ev of respStream) {
    rs.events++;
    if (ev.type === 'response.output_text.delta') rs.text += ev.delta;
    if (ev.type === 'response.completed') rs.usage = ev.response.usage;
    if (ev.type === 'response.output_item.done' && ev.item.type === 'function_call')
      rs.tools.push({ id: stable(ev.item.call_id), name: ev.item.name, args: ev.item.arguments });
  }
  out.push(rs);

  const msg = await anthropic.messages.create({
    model: k.model,
    max_tokens: 256,
    messages,
    tools: [{ name: 'weather', input_schema: WEATHER_TOOL.function.parameters as never }],
  });
  out.push({
    call: 'messages',
    text: msg.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join(''),
    tools: msg.content.flatMap((b) => (b.type === 'tool_use' ? [{ id: stable(b.id), name: b.name, args: JSON.stringify(b.input) }] : [])),
    events: 0,
    usage: msg.usage,
  });

  const msgStream = await anthropic.messages.create({ model: k.model, max_tokens: 256, messages, stream: true });
  const ms: Observation = { call: 'messages-stream', text: '', tools: [], events: 0, usage: {} };
  for await (const ev of msgStream) {
    ms.events++;
    if (ev.type === 'message_start') ms.usage = { ...ev.message.usage };
    if (ev.type === 'message_delta') ms.usage = { ...(ms.usage as object), ...ev.usage };
    if (ev.type === 'content_block_start' && ev.content_block.type === 'tool_use')
      ms.tools.push({ id: stable(ev.content_block.id), name: ev.content_block.name, args: '' });
    if (ev.type === 'content_block_delta' && ev.delta.type === 'text_delta') ms.text += ev.delta.text;
    if (ev.type === 'content_block_delta' && ev.delta.type === 'input_json_delta') ms.tools.at(-1)!.args += ev.delta.partial_json;
  }
  out.push(ms);

  const gen = await genai.models.generateContent({ model: k.model, contents: messages[0]!.content, config: { tools: GEMINI_TOOLS } });
  out.push({
    call: 'gemini',
    text: geminiText(gen),
    tools: (gen.functionCalls ?? []).map((c) => ({ id: stable(c.id ?? ''), name: c.name ?? '', args: JSON.stringify(c.args) })),
    events: 0,
    usage: gen.usageMetadata,
  });

  const genStream = await genai.models.generateContentStream({ model: k.model, contents: messages[0]!.content });
  const gs: Observation = { call: 'gemini-stream', text: '', tools: [], events: 0, usage: undefined };
  for await (const c of genStream) {
    gs.events++;
    gs.text += geminiText(c);
    if (c.usageMetadata) gs.usage = c.usageMetadata;
  }
  out.push(gs);

  if (k.embeddings) {
    const emb = await openai.embeddings.create({ model: k.model, input: 'hello', encoding_format: 'float' });
    out.push({ call: 'embeddings', text: '', tools: [], events: 0, usage: emb.usage, extra: emb.data.map((d) => d.embedding.slice(0, 3)) });
  }
  const counted = await anthropic.messages.countTokens({ model: k.model, messages });
  out.push({ call: 'count_tokens', text: '', tools: [], events: 0, usage: counted });
  return out;
}

/** The text parts of a Gemini answer (the SDK's `text` getter warns on every answer that also calls a function). */
function geminiText(r: { candidates?: Array<{ content?: { parts?: Array<{ text?: string; thought?: boolean }> } }> }): string {
  return (r.candidates?.[0]?.content?.parts ?? []).flatMap((p) => (p.text !== undefined && !p.thought ? [p.text] : [])).join('');
}

/** The request log's entries (newest first) once `n` are there. */
export async function requestLog(url: string, adminToken: string, n: number): Promise<Array<Record<string, unknown>>> {
  let entries: Array<Record<string, unknown>> = [];
  for (let i = 0; i < 200; i++) {
    const res = await fetch(`${url}/v1/requests?limit=1000`, { headers: { authorization: `Bearer ${adminToken}` } });
    entries = (await res.json()) as Array<Record<string, unknown>>;
    if (entries.length >= n) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  return entries;
}

/** What a request-log entry says a request was charged, the fields that must match between a recording and its replay. */
export function charged(e: Record<string, unknown>): Record<string, unknown> {
  const { route, model, provider, status, prompt_tokens, completion_tokens, cost_usd } = e;
  return { route, model, provider, status, prompt_tokens, completion_tokens, cost_usd };
}

const event = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

/**
 * One turn of a Claude Code session on a Messages upstream, as a stream: a Bash call reading
 * notes.txt (`cat notes.txt`), or, once its result came back (`answered`), the answer from it.
 */
export function claudeCodeTurn(res: ServerResponse, answered: boolean): void {
  const usage = { input_tokens: 2150, output_tokens: 1 };
  let sse = event('message_start', {
    message: {
      id: `msg_${answered ? 2 : 1}`,
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-6',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage,
    },
  });
  sse += event('content_block_start', {
    index: 0,
    content_block: answered ? { type: 'text', text: '' } : { type: 'tool_use', id: 'toolu_01', name: 'Bash', input: {} },
  });
  sse += event('content_block_delta', {
    index: 0,
    delta: answered
      ? { type: 'text_delta', text: 'The note says: remember the milk.' }
      : { type: 'input_json_delta', partial_json: '{"command": "cat notes.txt", "description": "Read the note"}' },
  });
  sse += event('content_block_stop', { index: 0 });
  sse += event('message_delta', { delta: { stop_reason: answered ? 'end_turn' : 'tool_use', stop_sequence: null }, usage: { output_tokens: 14 } });
  sse += event('message_stop', {});
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(sse);
}

/** The Claude Code session of claudeCodeTurn: `claude -p` asks what notes.txt says, with `cat` allowed, against gw at `baseUrl`. */
export function claudeCodeNotesSession(baseUrl: string): Promise<ClaudeCodeResult> {
  return runClaudeCode({
    baseUrl,
    apiKey: KEY,
    model: 'claude-sonnet-4-6',
    prompt: 'What does notes.txt say?',
    files: { 'notes.txt': 'remember the milk\n' },
    args: ['--output-format', 'json', '--allowedTools', 'Bash(cat:*)'],
  });
}
