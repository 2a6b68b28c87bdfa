/**
 * A common-format ChatCompletion → a Response object, for POST /v1/responses (non-streaming)
 * served by translation.
 * @see OpenAI API reference: The response object, The chat completion object
 */
import { type ChatCompletion, type ChatMessage, GatewayError } from 'gw/plugin';
import type { ToolNames } from './map-tools.ts';
import { mapStatus } from './map-status.ts';
import { toResponsesUsage } from './map-usage.ts';
import { type FromChatOptions, itemId, responseBase } from './response-base.ts';
import type { ResponsesFunctionCall, ResponsesOutputItem, ResponsesOutputMessage, ResponsesResponse } from './types.ts';

/**
 * Converts `choices[0]` into a Response (README: "Response: from a common-format completion").
 * `call_id` is the upstream call id verbatim, so the client's `function_call_output` reaches
 * the upstream unchanged.
 * @throws GatewayError 502 when the completion has no choice: there is nothing to answer with.
 */
export function chatCompletionToResponse(res: ChatCompletion, opts: FromChatOptions): ResponsesResponse {
  const choice = res.choices?.[0];
  if (!choice) throw new GatewayError(502, 'upstream returned a completion without choices', { type: 'upstream_error' });
  const out = responseBase(opts);
  const msg: ChatMessage = choice.message ?? { role: 'assistant' };
  const output: ResponsesOutputItem[] = out.output;

  if (typeof msg.reasoning_content === 'string' && msg.reasoning_content !== '') {
    output.push({
      type: 'reasoning',
      id: itemId('rs', out.id, output.length),
      summary: [],
      content: [{ type: 'reasoning_text', text: msg.reasoning_content }],
      status: 'completed',
    });
  }
  const text = textOf(msg.content);
  const refusal = typeof msg.refusal === 'string' && msg.refusal !== '' ? msg.refusal : '';
  if (text !== '' || refusal !== '') {
    const message: ResponsesOutputMessage = { type: 'message', id: itemId('msg', out.id, output.length), status: 'completed', role: 'assistant', content: [] };
    if (text !== '') message.content.push({ type: 'output_text', text, annotations: [], logprobs: [] });
    if (refusal !== '') message.content.push({ type: 'refusal', refusal });
    output.push(message);
  }
  for (const [i, call] of (Array.isArray(msg.tool_calls) ? msg.tool_calls : []).entries()) {
    output.push(
      functionCallItem(
        out.id,
        output.length,
        call.id || `call_${out.id.slice(5, 29)}_${i}`,
        call.function?.name ?? '',
        call.function?.arguments ?? '',
        opts.toolNames,
      ),
    );
  }

  const status = mapStatus(choice.finish_reason);
  out.status = status.status;
  out.incomplete_details = status.incomplete_details;
  if (status.status === 'incomplete' && output.length > 0) output[output.length - 1].status = 'incomplete';
  out.completed_at = status.status === 'completed' ? Math.floor(Date.now() / 1000) : null;
  out.usage = toResponsesUsage(res.usage);
  return out;
}

/** A completed `function_call` output item; `namespace` is set only for a restored namespaced function. */
export function functionCallItem(
  responseId: string,
  index: number,
  callId: string,
  upstreamName: string,
  args: string,
  names: ToolNames,
): ResponsesFunctionCall & { id: string; status: 'completed' } {
  const { name, namespace } = names.restore(upstreamName);
  const item: ResponsesFunctionCall & { id: string; status: 'completed' } = {
    type: 'function_call',
    id: itemId('fc', responseId, index),
    status: 'completed',
    call_id: callId,
    name,
    arguments: args,
  };
  if (namespace !== undefined) item.namespace = namespace;
  return item;
}

/** Message content as text; some upstreams answer with text parts instead of a string. */
function textOf(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p) => (p.type === 'text' && typeof p.text === 'string' ? p.text : '')).join('');
}
