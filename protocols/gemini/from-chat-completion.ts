/**
 * A common-format ChatCompletion → a Gemini `GenerateContentResponse`.
 * @see Gemini API reference: GenerateContentResponse; OpenAI API reference: The chat completion object
 */
import type { ChatCompletion, ChatMessage, ToolCall } from 'gw/plugin';
import { toToolInput } from '../../lib/common/tool-input.ts';
import { toGeminiFinishReason } from './map-finish-reason.ts';
import { toUsageMetadata } from './map-usage.ts';
import type { Candidate, GenerateContentResponse, Part } from './types.ts';

export interface ToGeminiOptions {
  /** Return `reasoning_content` as `thought: true` parts (the request's `includeThoughts`). */
  includeThoughts: boolean;
}

/**
 * One candidate per choice, parts in Gemini's order (README: "Client direction, response").
 * The call id goes out as `functionCall.id`, which clients echo, so gw pairs results exactly;
 * an empty choice gets one empty text part (clients read `parts[0]`).
 */
export function chatCompletionToGemini(res: ChatCompletion, opts: ToGeminiOptions): GenerateContentResponse {
  const choices = Array.isArray(res.choices) ? res.choices : [];
  const out: GenerateContentResponse = {
    candidates: choices.map(
      (c, i): Candidate => ({
        content: { role: 'model', parts: messageParts(c.message ?? { role: 'assistant' }, opts.includeThoughts) },
        finishReason: toGeminiFinishReason(c.finish_reason),
        index: typeof c.index === 'number' ? c.index : i,
      }),
    ),
  };
  if (res.usage) out.usageMetadata = toUsageMetadata(res.usage);
  if (typeof res.model === 'string' && res.model !== '') out.modelVersion = res.model;
  if (typeof res.id === 'string' && res.id !== '') out.responseId = res.id;
  return out;
}

function messageParts(msg: ChatMessage, includeThoughts: boolean): Part[] {
  const parts: Part[] = [];
  if (includeThoughts && typeof msg.reasoning_content === 'string' && msg.reasoning_content !== '') {
    parts.push({ text: msg.reasoning_content, thought: true });
  }
  const text = textOf(msg.content);
  if (text !== '') parts.push({ text });
  if (typeof msg.refusal === 'string' && msg.refusal !== '') parts.push({ text: msg.refusal });
  if (Array.isArray(msg.tool_calls)) for (const call of msg.tool_calls) parts.push(functionCallPart(call));
  if (parts.length === 0) parts.push({ text: '' });
  return parts;
}

/** A whole tool call → a `functionCall` part; the id only when the upstream gave one. */
export function functionCallPart(call: Pick<ToolCall, 'id' | 'function'>): Part {
  const fc: NonNullable<Part['functionCall']> = { name: call.function?.name ?? '', args: toToolInput(call.function?.arguments) };
  if (typeof call.id === 'string' && call.id !== '') fc.id = call.id;
  return { functionCall: fc };
}

/** Message content as text; some upstreams answer with text parts instead of a string. */
function textOf(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let text = '';
  for (const p of content) if (p.type === 'text' && typeof p.text === 'string') text += p.text;
  return text;
}
