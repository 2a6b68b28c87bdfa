/**
 * A tiny local Responses API server for driving real clients (Codex CLI, @openai/agents,
 * @ai-sdk/openai, the openai SDK) without gw: a real HTTP server on 127.0.0.1 whose answers
 * are scripted as common-format replies and rendered by the Responses translators — the same
 * path a translated kind takes inside gw, minus the gateway. Every request body also goes
 * through `responsesToChatRequest`, so a client sending something the translator rejects
 * gets the same 400 it would get from gw.
 */
import type { ServerResponse } from 'node:http';
import { GatewayError } from '../../core/errors.ts';
import type { ChatCompletion, ChatCompletionChunk } from '../../lib/common/chat.ts';
import { CommonToResponsesStep } from '../../protocols/openai-responses/from-common-step.ts';
import { encodeResponsesEvent } from '../../protocols/openai-responses/encode-event.ts';
import { chatCompletionToResponse } from '../../protocols/openai-responses/from-chat-completion.ts';
import { type ToChatResult, responsesToChatRequest } from '../../protocols/openai-responses/to-chat-request.ts';
import type { ResponsesRequest } from '../../protocols/openai-responses/types.ts';
import { type MockUpstream, type Received, replyJson, startUpstream } from './upstream.ts';

/** What the scripted model answers for one request. */
export interface MockReply {
  reasoning?: string;
  text?: string;
  calls?: Array<{ name: string; arguments: string; id?: string }>;
  /** Common-format finish reason; default `tool_calls` when there are calls, else `stop`. */
  finish?: string;
  /** A failure after the first events (streams only): `response.failed` follows what was sent. */
  failAfterStart?: string;
}

export interface ResponsesMock extends MockUpstream {
  /** `${origin}/v1`, the base URL clients take. */
  baseURL: string;
  /** The translation of each POST /v1/responses body, in order. */
  translated: ToChatResult[];
}

/**
 * Starts the mock. `script(req, n)` answers the n-th (from 0) POST /v1/responses; other
 * paths answer 404 in the OpenAI error shape.
 */
export async function startResponsesMock(script: (req: Received, n: number) => MockReply): Promise<ResponsesMock> {
  const translated: ToChatResult[] = [];
  let n = 0;
  const upstream = await startUpstream(async (req, res) => {
    if (req.method !== 'POST' || !req.url.startsWith('/v1/responses')) {
      return replyJson(res, 404, { error: { message: `no route ${req.method} ${req.url}`, type: 'invalid_request_error', code: null, param: null } });
    }
    const body = req.json as ResponsesRequest;
    let tr: ToChatResult;
    try {
      tr = responsesToChatRequest(body);
    } catch (err) {
      if (err instanceof GatewayError) return replyJson(res, err.status, err.toJSON());
      throw err;
    }
    translated.push(tr);
    const reply = script(req, n++);
    const opts = { body, requestModel: body.model, toolNames: tr.toolNames };
    if (body.stream !== true) return replyJson(res, 200, chatCompletionToResponse(toCompletion(reply), opts));
    return streamReply(res, new CommonToResponsesStep(opts), reply);
  });
  return Object.assign(upstream, { baseURL: `${upstream.origin}/v1`, translated });
}

function streamReply(res: ServerResponse, m: CommonToResponsesStep, reply: MockReply): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const write = (events: ReturnType<CommonToResponsesStep['push']>) => {
    for (const ev of events) res.write(encodeResponsesEvent(ev));
  };
  for (const c of toChunks(reply)) write(m.push(c));
  write(reply.failAfterStart === undefined ? m.end() : m.fail({ message: reply.failAfterStart, status: 502, code: 'upstream_error', type: 'upstream_error' }));
  res.end();
}

/** The reply as an upstream would stream it: reasoning, text in two pieces, each call in two fragments, finish, usage. */
function toChunks(r: MockReply): ChatCompletionChunk[] {
  const c = (delta: ChatCompletionChunk['choices'][0]['delta'], finish: string | null = null): ChatCompletionChunk => ({
    id: 'chatcmpl-mock',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'mock',
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const out: ChatCompletionChunk[] = [c({ role: 'assistant' })];
  if (r.reasoning) out.push(c({ reasoning_content: r.reasoning }));
  if (r.text) {
    const half = Math.ceil(r.text.length / 2);
    out.push(c({ content: r.text.slice(0, half) }), c({ content: r.text.slice(half) }));
  }
  (r.calls ?? []).forEach((call, index) => {
    const half = Math.ceil(call.arguments.length / 2);
    out.push(
      c({
        tool_calls: [{ index, id: call.id ?? `call_mock_${index}`, type: 'function', function: { name: call.name, arguments: call.arguments.slice(0, half) } }],
      }),
    );
    out.push(c({ tool_calls: [{ index, function: { arguments: call.arguments.slice(half) } }] }));
  });
  if (r.failAfterStart !== undefined) return out;
  out.push(c({}, finishOf(r)));
  out.push({ ...c({}), choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } });
  return out;
}

function toCompletion(r: MockReply): ChatCompletion {
  const calls = (r.calls ?? []).map((call, i) => ({
    id: call.id ?? `call_mock_${i}`,
    type: 'function' as const,
    function: { name: call.name, arguments: call.arguments },
  }));
  return {
    id: 'chatcmpl-mock',
    object: 'chat.completion',
    created: 0,
    model: 'mock',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: r.text ?? null, reasoning_content: r.reasoning, ...(calls.length ? { tool_calls: calls } : {}) },
        finish_reason: finishOf(r),
      },
    ],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  };
}

function finishOf(r: MockReply): string {
  return r.finish ?? (r.calls?.length ? 'tool_calls' : 'stop');
}
