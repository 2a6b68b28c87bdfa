/**
 * A scripted upstream for the accounting-views test: one server speaking the Messages,
 * chat-completions, Responses and Gemini wire formats (by the path called), whose
 * behaviour is chosen by the model name (`<kind>-<behaviour>`). Every answer waits `SLOW_MS` before its first byte (a slow
 * upstream: its time must show as upstream time, not gw overhead); stream events come
 * `GAP_MS` apart. Usage is always 21 prompt / 9 completion tokens for a whole answer.
 */
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { replyJson, startUpstream, type MockUpstream, type Received } from '../helpers/upstream.ts';

export const SLOW_MS = 250;
export const GAP_MS = 30;

/** The provider sections: `openai` speaks chat completions and, natively, Responses. */
export type Kind = 'anthropic' | 'openai' | 'gemini';

type WireName = 'messages' | 'chat' | 'responses' | 'gemini';

/**
 * What the upstream does: `ok` answers (JSON or a stream, as asked), `bare` too but reports
 * no usage (an upstream that ignores `stream_options`, a bare self-hosted server); `e4xx`/`e5xx` answer
 * 400/500 (`fb` too: a model with a fallback); `hang` never sends headers (a timeout before
 * the first byte); streams: `startfail` sends its first event (with usage) then an error
 * event, before any output; `cut`, `errev`, `stall` and `gone` send the first event and two
 * text deltas, then cut the connection, send an error event, go silent (a timeout after the
 * first byte), or wait for the client to leave.
 */
export type Behaviour = 'ok' | 'bare' | 'e4xx' | 'e5xx' | 'fb' | 'hang' | 'startfail' | 'cut' | 'errev' | 'stall' | 'gone';

/** The text of the first two deltas: a client that saw it has seen gw's first bytes. */
export const MARKER = 'beta';

interface Wire {
  json(): unknown;
  error(status: number): unknown;
  /** The first stream event (usage reported, no output). */
  start: string;
  /** Three text deltas (`alpha `, `beta `, `gamma`), each with its running usage where the wire has one. */
  deltas: [string, string, string];
  /** What ends a whole stream after the deltas. */
  end: string[];
  errorEvent: string;
}

const sse = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;
const named = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

const MESSAGE = { id: 'msg_views', type: 'message', role: 'assistant', model: 'claude-views', stop_sequence: null };
const textDelta = (text: string) => named('content_block_delta', { index: 0, delta: { type: 'text_delta', text } });

const chunk = (delta: Record<string, unknown>, finish: string | null = null, usage?: Record<string, number>) => ({
  id: 'chatcmpl-views',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'views',
  choices: [{ index: 0, delta, finish_reason: finish }],
  ...(usage ? { usage } : {}),
});
const chatUsage = (completion: number) => ({ prompt_tokens: 21, completion_tokens: completion, total_tokens: 21 + completion });

const candidate = (text: string, completion: number, finish?: string) => ({
  candidates: [{ content: { role: 'model', parts: [{ text }] }, index: 0, ...(finish ? { finishReason: finish } : {}) }],
  usageMetadata: { promptTokenCount: 21, candidatesTokenCount: completion, totalTokenCount: 21 + completion },
  modelVersion: 'gemini-views',
});

/** A Responses API response object: in progress (no output yet) or completed with usage. */
const response = (status: string, done: boolean) => ({
  id: 'resp_views',
  object: 'response',
  created_at: 1,
  status,
  model: 'views',
  output: done
    ? [
        {
          type: 'message',
          id: 'msg_views',
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'alpha beta gamma', annotations: [] }],
        },
      ]
    : [],
  usage: done ? { input_tokens: 21, output_tokens: 9, total_tokens: 30 } : null,
});
const textEvent = (delta: string, seq: number) =>
  named('response.output_text.delta', { item_id: 'msg_views', output_index: 0, content_index: 0, delta, sequence_number: seq });

const WIRE: Record<WireName, Wire> = {
  messages: {
    json: () => ({ ...MESSAGE, content: [{ type: 'text', text: 'alpha beta gamma' }], stop_reason: 'end_turn', usage: { input_tokens: 21, output_tokens: 9 } }),
    error: (status) => ({ type: 'error', error: { type: status === 400 ? 'invalid_request_error' : 'api_error', message: `upstream says ${status}` } }),
    start: named('message_start', { message: { ...MESSAGE, content: [], stop_reason: null, usage: { input_tokens: 21, output_tokens: 1 } } }),
    deltas: [
      named('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }) + textDelta('alpha '),
      textDelta('beta '),
      textDelta('gamma'),
    ],
    end: [
      named('content_block_stop', { index: 0 }),
      named('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 9 } }),
      named('message_stop', {}),
    ],
    errorEvent: named('error', { error: { type: 'overloaded_error', message: 'upstream overloaded' } }),
  },
  chat: {
    json: () => ({
      id: 'chatcmpl-views',
      object: 'chat.completion',
      created: 1,
      model: 'views',
      choices: [{ index: 0, message: { role: 'assistant', content: 'alpha beta gamma' }, finish_reason: 'stop' }],
      usage: chatUsage(9),
    }),
    error: (status) => ({ error: { message: `upstream says ${status}`, type: status === 400 ? 'invalid_request_error' : 'server_error', code: null } }),
    // usage on every chunk, as vLLM's continuous usage stats send it
    start: sse(chunk({ role: 'assistant', content: '' }, null, chatUsage(0))),
    deltas: [sse(chunk({ content: 'alpha ' })), sse(chunk({ content: 'beta ' })), sse(chunk({ content: 'gamma' }))],
    end: [sse(chunk({}, 'stop')), sse({ ...chunk({}), choices: [], usage: chatUsage(9) }), 'data: [DONE]\n\n'],
    errorEvent: sse({ error: { message: 'upstream overloaded', type: 'server_error' } }),
  },
  responses: {
    json: () => response('completed', true),
    error: (status) => ({
      error: { message: `upstream says ${status}`, type: status === 400 ? 'invalid_request_error' : 'server_error', code: null, param: null },
    }),
    start: named('response.created', { response: response('in_progress', false), sequence_number: 0 }),
    deltas: [textEvent('alpha ', 1), textEvent('beta ', 2), textEvent('gamma', 3)],
    end: [named('response.completed', { response: response('completed', true), sequence_number: 4 })],
    errorEvent: named('error', { code: 'server_error', message: 'upstream overloaded', param: null, sequence_number: 5 }),
  },
  gemini: {
    json: () => candidate('alpha beta gamma', 9, 'STOP'),
    error: (status) => ({ error: { code: status, message: `upstream says ${status}`, status: status === 400 ? 'INVALID_ARGUMENT' : 'INTERNAL' } }),
    start: sse({ ...candidate('', 0), usageMetadata: { promptTokenCount: 21, totalTokenCount: 21 } }),
    deltas: [sse(candidate('alpha ', 1)), sse(candidate('beta ', 2)), sse(candidate('gamma', 9, 'STOP'))],
    end: [],
    errorEvent: sse({ error: { code: 503, message: 'upstream overloaded', status: 'UNAVAILABLE' } }),
  },
};

/** The behaviour a model name asks for (`anthropic-cut` → `cut`; `openai-ok.np` → `ok`: a suffix after `.` names a variant). */
export function behaviourOf(model: string): Behaviour {
  const dot = model.indexOf('.');
  return model.slice(model.indexOf('-') + 1, dot < 0 ? undefined : dot) as Behaviour;
}

/** `v` without its usage report, wherever the wire puts one. */
function bare<T>(v: T): T {
  const o = v as { usage?: unknown; usageMetadata?: unknown; message?: { usage?: unknown }; response?: { usage?: unknown } };
  delete o.usage;
  delete o.usageMetadata;
  if (o.message) delete o.message.usage;
  if (o.response) delete o.response.usage;
  return v;
}

/** An SSE event without its usage report. */
function bareEvent(ev: string): string {
  return ev.replace(/^data: (\{.*\})$/m, (_, json: string) => `data: ${JSON.stringify(bare(JSON.parse(json)))}`);
}

async function answer(req: Received, res: ServerResponse): Promise<void> {
  const gemini = /\/v1beta\/models\/([^:/]+):(\w+)/.exec(req.url);
  const wire: WireName = gemini ? 'gemini' : req.url.endsWith('/messages') ? 'messages' : req.url.endsWith('/responses') ? 'responses' : 'chat';
  const stream = gemini ? gemini[2] === 'streamGenerateContent' : req.json?.stream === true;
  const b = behaviourOf(gemini ? gemini[1]! : String(req.json?.model));
  const closed = new Promise<void>((r) => res.once('close', () => r()));
  if (b === 'hang') return closed;
  await sleep(SLOW_MS);
  const w = WIRE[wire];
  if (b === 'e4xx') return replyJson(res, 400, w.error(400));
  if (b === 'e5xx' || b === 'fb') return replyJson(res, 500, w.error(500));
  if (!stream) return replyJson(res, 200, b === 'bare' ? bare(w.json()) : w.json());
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const send = async (events: string[]) => {
    for (const e of events) {
      if (res.destroyed) return;
      res.write(e);
      await sleep(GAP_MS);
    }
  };
  if (b === 'startfail') {
    await send([w.start]);
    return void res.end(w.errorEvent);
  }
  if (b === 'ok' || b === 'bare') {
    const events = [w.start, ...w.deltas, ...w.end];
    await send(b === 'bare' ? events.map(bareEvent).filter((e) => !/"choices":\[\]/.test(e)) : events);
    return void res.end();
  }
  await send([w.start, w.deltas[0], w.deltas[1]]);
  if (b === 'cut') return void res.socket?.destroy();
  if (b === 'errev') return void res.end(w.errorEvent);
  // stall: gw's timeout ends it; gone: the client leaves, gw aborts the call
  return closed;
}

/** The scripted upstream on an ephemeral port. */
export function viewsUpstream(): Promise<MockUpstream> {
  return startUpstream(answer);
}
