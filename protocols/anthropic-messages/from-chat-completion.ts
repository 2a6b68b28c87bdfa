/**
 * A common-format ChatCompletion → a Messages response, for POST /v1/messages served by a
 * common-format upstream.
 * @see OpenAI API reference: The chat completion object; Anthropic API: Messages (response shape)
 */
import { type ChatCompletion, type ChatMessage, errors } from 'gw/plugin';
import { toToolInput } from '../../lib/common/tool-input.ts';
import { findStopSequence, toMessagesStopReason } from './map-stop-reason.ts';
import type { MessagesContentBlock, MessagesResponse } from './types.ts';
import { toMessageId, toMessagesUsage } from './map-usage.ts';

export interface FromChatOptions {
  /** The model the client asked for; echoed back so clients see their own name, not an alias target. */
  requestModel: string;
  /** The request's `stop_sequences`, to tell `stop_sequence` from `end_turn`. */
  stopSequences?: readonly string[];
  /** The provider that answered, for error messages. */
  provider?: string;
}

/**
 * Converts `choices[0]` of a completion into a Messages response. A `thinking` block gets
 * `signature: ''`: the upstream signs nothing, and gw drops thinking blocks when they come back.
 * @throws GatewayError 502 when the completion has no choice: there is nothing to answer with.
 */
export function chatCompletionToMessages(res: ChatCompletion, opts: FromChatOptions): MessagesResponse {
  const choice = res.choices?.[0];
  if (!choice) throw errors.UPSTREAM_MALFORMED({ provider: opts.provider ?? 'upstream', what: 'a completion without choices' }, { provider: opts.provider });
  const msg: ChatMessage = choice.message ?? { role: 'assistant' };
  const id = toMessageId(res.id);
  const content: MessagesContentBlock[] = [];

  if (typeof msg.reasoning_content === 'string' && msg.reasoning_content !== '') {
    content.push({ type: 'thinking', thinking: msg.reasoning_content, signature: '' });
  }
  const text = textOf(msg.content);
  if (text !== '') content.push({ type: 'text', text });
  const refusal = typeof msg.refusal === 'string' && msg.refusal !== '' ? msg.refusal : null;
  if (refusal !== null) content.push({ type: 'text', text: refusal });

  const calls = Array.isArray(msg.tool_calls) ? msg.tool_calls : [];
  calls.forEach((call, i) => {
    content.push({
      type: 'tool_use',
      // An upstream id is kept verbatim: the client echoes it as `tool_use_id` and it must reach the upstream unchanged.
      id: call.id || `toolu_${id.slice(4)}_${i}`,
      name: call.function?.name ?? '',
      input: toToolInput(call.function?.arguments),
    });
  });

  const stop =
    refusal !== null
      ? { stop_reason: 'refusal', stop_sequence: null }
      : toMessagesStopReason(choice.finish_reason, {
          hasToolUse: calls.length > 0,
          matchedStop: findStopSequence(text, opts.stopSequences, choice.stop_reason ?? choice.matched_stop),
        });

  return {
    id,
    type: 'message',
    role: 'assistant',
    model: opts.requestModel,
    content,
    stop_reason: stop.stop_reason,
    stop_sequence: stop.stop_sequence,
    usage: toMessagesUsage(res.usage),
  };
}

/** Message content as text; some upstreams answer with text parts instead of a string. */
function textOf(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p) => (p.type === 'text' && typeof p.text === 'string' ? p.text : '')).join('');
}
