/**
 * A mock vendor for the guardrails end-to-end tests: one HTTP server on 127.0.0.1 answering
 * OpenAI chat completions, Responses, Anthropic Messages and Gemini (JSON and streams), with
 * the answer a test scripts (text in pieces, one event per piece, and an optional tool call
 * whose JSON arguments come in pieces too), shaped as each vendor's wire format.
 */
import type { ServerResponse } from 'node:http';
import type { ExecutionContext } from 'ava';
import { baseConfig, startGateway, type TestGateway } from './gateway.ts';
import { type MockUpstream, type Received, replyJson, startUpstream } from './upstream.ts';

/** The models of {@link guardedGateway}: chat completions (and Responses natively), Messages, Gemini, and Responses translated to chat completions. */
export const MODELS = {
  chat: 'gpt-5.4-nano',
  claude: 'claude-sonnet-4-5-20250929',
  gemini: 'gemini-2.5-flash',
  translated: 'gpt-5.4-nano-translated',
} as const;

/** Each client format against a provider that serves it natively and one that translates it (the upstream path it then reaches). */
export const FORMAT_CASES: ReadonlyArray<{ readonly format: 'chat' | 'messages' | 'responses' | 'gemini'; readonly model: string; readonly upstream: string }> =
  [
    { format: 'chat', model: MODELS.chat, upstream: '/v1/chat/completions' },
    { format: 'chat', model: MODELS.claude, upstream: '/v1/messages' },
    { format: 'messages', model: MODELS.claude, upstream: '/v1/messages' },
    { format: 'messages', model: MODELS.chat, upstream: '/v1/chat/completions' },
    { format: 'responses', model: MODELS.chat, upstream: '/v1/responses' },
    { format: 'responses', model: MODELS.translated, upstream: '/v1/chat/completions' },
    { format: 'gemini', model: MODELS.gemini, upstream: `/v1beta/models/${MODELS.gemini}:generateContent` },
    { format: 'gemini', model: MODELS.claude, upstream: '/v1/messages' },
  ];

/** What the vendor answers: text pieces (one stream event each) and an optional tool call. */
export interface Script {
  readonly text: readonly string[];
  readonly call?: { readonly name: string; readonly args: readonly string[] };
}

/** The mock vendor: `script` is what the next answers say; `received` what it was sent. */
export interface ScriptedVendor extends MockUpstream {
  script: Script;
  /** Every body it received, as text, for "the raw value never arrived" checks. */
  bodies(): string;
}

const CALL_ID = 'call_gr_0001';

function sse(res: ServerResponse, frames: readonly string[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const frame of frames) res.write(frame);
  res.end();
}

const data = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;
const named = (event: string, value: Record<string, unknown>) => `event: ${event}\ndata: ${JSON.stringify({ type: event, ...value })}\n\n`;

function chat(req: Received, script: Script, res: ServerResponse): void {
  const model = req.json.model as string;
  const text = script.text.join('');
  const args = script.call?.args.join('');
  const base = { id: 'chatcmpl-gr1', created: 1_767_225_600, model };
  const usage = { prompt_tokens: 12, completion_tokens: 9, total_tokens: 21 };
  const finish = script.call ? 'tool_calls' : 'stop';
  if (req.json.stream !== true) {
    const message: Record<string, unknown> = { role: 'assistant', content: text === '' ? null : text };
    if (script.call) message.tool_calls = [{ id: CALL_ID, type: 'function', function: { name: script.call.name, arguments: args } }];
    return void replyJson(res, 200, { ...base, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: finish }], usage });
  }
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) =>
    data({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finishReason }] });
  const frames = [chunk({ role: 'assistant', content: '' })];
  for (const piece of script.text) frames.push(chunk({ content: piece }));
  if (script.call) {
    frames.push(chunk({ tool_calls: [{ index: 0, id: CALL_ID, type: 'function', function: { name: script.call.name, arguments: '' } }] }));
    for (const piece of script.call.args) frames.push(chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }));
  }
  frames.push(chunk({}, finish));
  if ((req.json.stream_options as { include_usage?: boolean } | undefined)?.include_usage)
    frames.push(data({ ...base, object: 'chat.completion.chunk', choices: [], usage }));
  frames.push('data: [DONE]\n\n');
  sse(res, frames);
}

function messages(req: Received, script: Script, res: ServerResponse): void {
  const model = req.json.model as string;
  const text = script.text.join('');
  const stop = script.call ? 'tool_use' : 'end_turn';
  const usage = { input_tokens: 12, output_tokens: 9 };
  if (req.json.stream !== true) {
    const content: unknown[] = [{ type: 'text', text }];
    if (script.call) content.push({ type: 'tool_use', id: 'toolu_gr1', name: script.call.name, input: JSON.parse(script.call.args.join('')) });
    return void replyJson(res, 200, { id: 'msg_gr1', type: 'message', role: 'assistant', model, content, stop_reason: stop, stop_sequence: null, usage });
  }
  const frames = [
    named('message_start', {
      message: {
        id: 'msg_gr1',
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usage, output_tokens: 1 },
      },
    }),
    named('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
  ];
  for (const piece of script.text) frames.push(named('content_block_delta', { index: 0, delta: { type: 'text_delta', text: piece } }));
  frames.push(named('content_block_stop', { index: 0 }));
  if (script.call) {
    frames.push(named('content_block_start', { index: 1, content_block: { type: 'tool_use', id: 'toolu_gr1', name: script.call.name, input: {} } }));
    for (const piece of script.call.args) frames.push(named('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: piece } }));
    frames.push(named('content_block_stop', { index: 1 }));
  }
  frames.push(named('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 9 } }), named('message_stop', {}));
  sse(res, frames);
}

function gemini(req: Received, script: Script, res: ServerResponse): void {
  const model = /models\/([^:]+):/.exec(req.url)![1]!;
  const usageMetadata = { promptTokenCount: 12, candidatesTokenCount: 9, totalTokenCount: 21 };
  const call = script.call && { functionCall: { name: script.call.name, args: JSON.parse(script.call.args.join('')) } };
  const response = (parts: unknown[], last: boolean) => ({
    candidates: [{ content: { role: 'model', parts }, ...(last ? { finishReason: 'STOP' } : {}), index: 0 }],
    ...(last ? { usageMetadata } : {}),
    modelVersion: model,
  });
  if (!req.url.includes(':streamGenerateContent')) {
    const parts: unknown[] = [{ text: script.text.join('') }];
    if (call) parts.push(call);
    return void replyJson(res, 200, response(parts, true));
  }
  const frames: string[] = [];
  script.text.forEach((piece, i) => {
    const last = i === script.text.length - 1 && call === undefined;
    frames.push(`data: ${JSON.stringify(response([{ text: piece }], last))}\r\n\r\n`);
  });
  if (call) frames.push(`data: ${JSON.stringify(response([call], true))}\r\n\r\n`);
  sse(res, frames);
}

function responses(req: Received, script: Script, res: ServerResponse): void {
  const model = req.json.model as string;
  const text = script.text.join('');
  const args = script.call?.args.join('');
  const message = { type: 'message', id: 'msg_gr1', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] };
  const call = script.call && { type: 'function_call', id: 'fc_gr1', call_id: CALL_ID, name: script.call.name, arguments: args, status: 'completed' };
  const output: unknown[] = call ? [message, call] : [message];
  const usage = {
    input_tokens: 12,
    output_tokens: 9,
    total_tokens: 21,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens_details: { reasoning_tokens: 0 },
  };
  const response = (status: string, out: unknown[], withUsage: boolean) => ({
    id: 'resp_gr1',
    object: 'response',
    created_at: 1_767_225_600,
    status,
    model,
    output: out,
    usage: withUsage ? usage : null,
  });
  if (req.json.stream !== true) return void replyJson(res, 200, response('completed', output, true));
  let seq = 0;
  const ev = (type: string, value: Record<string, unknown>) => named(type, { sequence_number: seq++, ...value });
  const frames = [
    ev('response.created', { response: response('in_progress', [], false) }),
    ev('response.output_item.added', { output_index: 0, item: { ...message, status: 'in_progress', content: [] } }),
    ev('response.content_part.added', { item_id: 'msg_gr1', output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } }),
  ];
  for (const piece of script.text) frames.push(ev('response.output_text.delta', { item_id: 'msg_gr1', output_index: 0, content_index: 0, delta: piece }));
  frames.push(
    ev('response.output_text.done', { item_id: 'msg_gr1', output_index: 0, content_index: 0, text }),
    ev('response.content_part.done', { item_id: 'msg_gr1', output_index: 0, content_index: 0, part: { type: 'output_text', text, annotations: [] } }),
    ev('response.output_item.done', { output_index: 0, item: message }),
  );
  if (call) {
    frames.push(ev('response.output_item.added', { output_index: 1, item: { ...call, arguments: '', status: 'in_progress' } }));
    for (const piece of script.call!.args) frames.push(ev('response.function_call_arguments.delta', { item_id: 'fc_gr1', output_index: 1, delta: piece }));
    frames.push(
      ev('response.function_call_arguments.done', { item_id: 'fc_gr1', output_index: 1, arguments: args }),
      ev('response.output_item.done', { output_index: 1, item: call }),
    );
  }
  frames.push(ev('response.completed', { response: response('completed', output, true) }));
  sse(res, frames);
}

/** Answers `req` with `script` in the wire format its path asks for (Messages, Responses, Gemini, else chat completions). */
export function replyScripted(req: Received, script: Script, res: ServerResponse): void {
  if (req.url.startsWith('/v1/messages')) messages(req, script, res);
  else if (req.url.startsWith('/v1/responses')) responses(req, script, res);
  else if (/:(?:stream)?generatecontent/i.test(req.url)) gemini(req, script, res);
  else chat(req, script, res);
}

/** Starts the scripted vendor: every path it serves answers `vendor.script`. */
export async function scriptedVendor(): Promise<ScriptedVendor> {
  let vendor: ScriptedVendor;
  const up = await startUpstream((req, res) => replyScripted(req, vendor.script, res));
  vendor = Object.assign(up, {
    script: { text: ['Hello', ' there.'] } as Script,
    bodies: () => up.received.map((r) => r.body).join('\n'),
  });
  return vendor;
}

/** gw with `extra` (the guardrails sections) and one provider of each kind for {@link MODELS}, all on one scripted vendor; both stopped after the test. */
export async function guardedGateway(t: ExecutionContext, extra: string): Promise<{ gw: TestGateway; up: ScriptedVendor }> {
  const up = await scriptedVendor();
  const gw = await startGateway(
    baseConfig(`[providers.oa]\nkind = "openai"\napi_key = "sk-o-0123456789"\nbase_url = "${up.origin}/v1"\nmax_retries = 0\nmodels = ["${MODELS.chat}"]\n
[providers.oa-translated]\nkind = "openai"\nresponses = "translated"\napi_key = "sk-o-0123456789"\nbase_url = "${up.origin}/v1"\nmax_retries = 0\nmodels = ["${MODELS.translated}"]\n
[providers.claude]\nkind = "anthropic"\napi_key = "sk-a-0123456789"\nbase_url = "${up.origin}"\nmax_retries = 0\nmodels = ["${MODELS.claude}"]\n
[providers.gem]\nkind = "gemini"\napi_key = "gk-0123456789"\nbase_url = "${up.origin}"\nmax_retries = 0\nmodels = ["${MODELS.gemini}"]\n
${extra}`),
  );
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  return { gw, up };
}
