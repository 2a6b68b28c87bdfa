/**
 * Messages response → OpenAI chat completion.
 * @see Anthropic API: Messages (response body)
 */
import type { ChatCompletion, ChatMessage, ToolCall } from 'gw/plugin';
import { fromMessagesStopReason } from './map-stop-reason.ts';
import { fromMessagesUsage } from './map-usage.ts';
import type { MessagesResponse } from './types.ts';

/**
 * Messages response → chat completion; `redacted_thinking` and server-tool blocks have no
 * chat form and are left out. `created` defaults to now; pass it for reproducible output.
 * @see Anthropic API: Messages; Anthropic docs: Handling stop reasons
 */
export function fromMessagesResponse(res: MessagesResponse, opts: { created?: number } = {}): ChatCompletion {
  let text = '';
  let hasText = false;
  let reasoning = '';
  let hasReasoning = false;
  const toolCalls: ToolCall[] = [];

  for (const block of res.content ?? []) {
    if (block.type === 'text' && typeof block.text === 'string') {
      text += block.text;
      hasText = true;
    } else if (block.type === 'thinking' && typeof block.thinking === 'string') {
      reasoning += block.thinking;
      hasReasoning = true;
    } else if (block.type === 'tool_use') {
      toolCalls.push({
        id: String(block.id),
        type: 'function',
        function: { name: String(block.name), arguments: JSON.stringify(block.input ?? {}) },
      });
    }
  }

  const message: ChatMessage = {
    role: 'assistant',
    content: hasText ? text : toolCalls.length > 0 ? null : '',
    refusal: refusalText(res),
  };
  if (hasReasoning) message.reasoning_content = reasoning;
  if (toolCalls.length > 0) message.tool_calls = toolCalls;

  return {
    id: res.id,
    object: 'chat.completion',
    created: opts.created ?? Math.floor(Date.now() / 1000),
    model: res.model,
    choices: [{ index: 0, message, finish_reason: fromMessagesStopReason(res.stop_reason) ?? 'stop', logprobs: null }],
    usage: fromMessagesUsage(res.usage),
  };
}

/** The explanation Anthropic attaches to a refusal (2026 `stop_details`), else null. */
export function refusalText(res: { stop_reason?: unknown; stop_details?: unknown }): string | null {
  if (res.stop_reason !== 'refusal') return null;
  const details = res.stop_details as { explanation?: unknown } | null | undefined;
  return typeof details?.explanation === 'string' ? details.explanation : null;
}
