/**
 * Shared pieces of the /v1/responses e2e tests: gw in front of one mock upstream of a given
 * kind, the official openai client on it, and scripted upstream answers in the chat and
 * Messages wire formats (for turns no recording has, such as Codex's exec_command).
 */
import type { ExecutionContext } from 'ava';
import OpenAI from 'openai';
import type { ServerResponse } from 'node:http';
import { baseConfig, KEY, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { replyJson, replySse, startUpstream, toSse, type Handler, type MockUpstream } from '../helpers/upstream.ts';

export { KEY };

/** The provider section of one kind on `origin`, serving `model`, no retries. */
export function providerToml(kind: 'anthropic' | 'gemini' | 'openai' | 'compat' | 'azure', origin: string, model: string, extra = ''): string {
  switch (kind) {
    case 'anthropic':
      return `[providers.anthropic]\napi_key = "sk-ant-upstream"\nbase_url = "${origin}"\nmax_retries = 0\nmodels = ["${model}"]\n${extra}`;
    case 'gemini':
      return `[providers.gemini]\napi_key = "gk-upstream"\nbase_url = "${origin}"\nmax_retries = 0\nmodels = ["${model}"]\n${extra}`;
    case 'openai':
      return `[providers.openai]\napi_key = "sk-openai-upstream"\nbase_url = "${origin}/v1"\nmax_retries = 0\nmodels = ["${model}"]\n${extra}`;
    case 'azure':
      return `[providers.azure]\napi_key = "az-upstream"\nbase_url = "${origin}"\nmax_retries = 0\nmodels = ["${model}"]\n${extra}`;
    case 'compat':
      return `[providers.compat]\napi_key = "sk-compat-upstream"\nbase_url = "${origin}/v1"\nmax_retries = 0\nmodels = ["${model}"]\n${extra}`;
  }
}

export interface Rig {
  up: MockUpstream;
  gw: TestGateway;
  client: OpenAI;
}

/** A mock upstream with `handler`, gw with `providerToml(kind…)` + `extra`, and an openai client; all stopped at teardown. */
export async function rig(
  t: ExecutionContext,
  kind: Parameters<typeof providerToml>[0],
  model: string,
  handler: Handler,
  extra = '',
  opts: Parameters<typeof startGateway>[1] = {},
): Promise<Rig> {
  const up = await startUpstream(handler);
  const gw = await startGateway(baseConfig(`${providerToml(kind, up.origin, model)}\n${extra}`), opts);
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  return { up, gw, client: new OpenAI({ baseURL: gw.baseURL, apiKey: KEY, maxRetries: 0 }) };
}

/** What a scripted model says: some text and/or function calls. */
export interface Scripted {
  text?: string;
  calls?: Array<{ id: string; name: string; arguments: string }>;
}

/** A chat-completions answer (stream or JSON) for `s`, as a common-format upstream sends it. */
export function replyChat(res: ServerResponse, stream: boolean, s: Scripted): void {
  const usage = { prompt_tokens: 21, completion_tokens: 9, total_tokens: 30 };
  const finish = s.calls?.length ? 'tool_calls' : 'stop';
  if (!stream) {
    const toolCalls = s.calls?.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
    replyJson(res, 200, {
      id: 'chatcmpl-scripted',
      object: 'chat.completion',
      created: 1,
      model: 'scripted',
      choices: [{ index: 0, message: { role: 'assistant', content: s.text ?? null, ...(toolCalls ? { tool_calls: toolCalls } : {}) }, finish_reason: finish }],
      usage,
    });
    return;
  }
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
    id: 'chatcmpl-scripted',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'scripted',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });
  const items: unknown[] = [chunk({ role: 'assistant', content: '' })];
  if (s.text) items.push(chunk({ content: s.text.slice(0, 5) }), chunk({ content: s.text.slice(5) }));
  s.calls?.forEach((c, index) => {
    items.push(chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] }));
    items.push(chunk({ tool_calls: [{ index, function: { arguments: c.arguments } }] }));
  });
  items.push(chunk({}, finish), { id: 'chatcmpl-scripted', object: 'chat.completion.chunk', created: 1, model: 'scripted', choices: [], usage });
  void replySse(res, toSse(items));
}

/** An Anthropic Messages answer (stream or JSON) for `s`. */
export function replyMessages(res: ServerResponse, stream: boolean, s: Scripted): void {
  const content: Array<Record<string, unknown>> = [];
  if (s.text) content.push({ type: 'text', text: s.text });
  for (const c of s.calls ?? []) content.push({ type: 'tool_use', id: c.id, name: c.name, input: JSON.parse(c.arguments) });
  const stop = s.calls?.length ? 'tool_use' : 'end_turn';
  const message = {
    id: 'msg_scripted',
    type: 'message',
    role: 'assistant',
    model: 'claude-scripted',
    content,
    stop_reason: stop,
    stop_sequence: null,
    usage: { input_tokens: 21, output_tokens: 9 },
  };
  if (!stream) {
    replyJson(res, 200, message);
    return;
  }
  const ev = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  let sse = ev('message_start', { message: { ...message, content: [], stop_reason: null, usage: { input_tokens: 21, output_tokens: 1 } } });
  content.forEach((block, index) => {
    if (block.type === 'text') {
      sse += ev('content_block_start', { index, content_block: { type: 'text', text: '' } });
      sse += ev('content_block_delta', { index, delta: { type: 'text_delta', text: block.text } });
    } else {
      sse += ev('content_block_start', { index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
      sse += ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } });
    }
    sse += ev('content_block_stop', { index });
  });
  sse += ev('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 9 } });
  sse += ev('message_stop', {});
  void replySse(res, sse);
}

/** A recorded Responses stream (one event payload per line, as vercel/ai records them) as SSE with `event:` lines, OpenAI's framing. */
export function chunksToSse(lines: string[]): string {
  return lines
    .filter((l) => l.trim() !== '')
    .map((l) => `event: ${(JSON.parse(l) as { type: string }).type}\ndata: ${l}\n\n`)
    .join('');
}

/** The events of a Responses SSE body: `event` name and parsed data. */
export function responsesEvents(text: string): Array<{ event: string | undefined; data: any }> {
  return text
    .split('\n\n')
    .filter((f) => f.includes('data: '))
    .map((f) => {
      const event = /^event: (.*)$/m.exec(f)?.[1];
      const data = f
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n');
      return { event, data: JSON.parse(data) };
    });
}
