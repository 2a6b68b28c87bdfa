/**
 * Gemini `GenerateContentResponse` → common-format chat completion.
 * @see Gemini API reference: GenerateContentResponse
 */
import type { ChatCompletion, ChatMessage, ToolCall } from 'gw/plugin';
import { fromGeminiFinishReason } from './map-finish-reason.ts';
import { fromUsageMetadata, hasTokenCounts } from './map-usage.ts';
import { mintToolCallId, type IdSource } from './tool-call-ids.ts';
import type { Candidate, GenerateContentResponse } from './types.ts';

export interface ResponseMeta {
  id: string;
  /** The model as the client named it (canonical id), not Gemini's `modelVersion`. */
  model: string;
  created: number;
  idSource?: IdSource;
}

/**
 * One choice per candidate (README: "Vendor direction, response"); tool-call ids carry the
 * part's `thoughtSignature`. A prompt blocked before any candidate is one `content_filter` choice.
 * @see Gemini API docs: Function calling
 */
export function fromGeminiResponse(res: GenerateContentResponse, meta: ResponseMeta): ChatCompletion {
  const candidates = res.candidates ?? [];
  const choices: ChatCompletion['choices'] =
    candidates.length > 0
      ? candidates.map((c, i) => toChoice(c, i, meta.idSource))
      : [
          {
            index: 0,
            message: { role: 'assistant', content: '', refusal: null },
            finish_reason: res.promptFeedback?.blockReason !== undefined ? 'content_filter' : 'stop',
            logprobs: null,
          },
        ];
  const completion: ChatCompletion = { id: meta.id, object: 'chat.completion', created: meta.created, model: meta.model, choices };
  if (hasTokenCounts(res.usageMetadata)) completion.usage = fromUsageMetadata(res.usageMetadata);
  return completion;
}

function toChoice(candidate: Candidate, position: number, idSource: IdSource | undefined): ChatCompletion['choices'][number] {
  let content = '';
  let reasoning = '';
  const toolCalls: ToolCall[] = [];
  for (const part of candidate.content?.parts ?? []) {
    if (part.functionCall !== undefined) {
      toolCalls.push({
        id: mintToolCallId(part.thoughtSignature, idSource),
        type: 'function',
        function: { name: part.functionCall.name ?? '', arguments: JSON.stringify(part.functionCall.args ?? {}) },
      });
    } else if (typeof part.text === 'string') {
      if (part.thought === true) reasoning += part.text;
      else content += part.text;
    }
  }
  const message: ChatMessage = { role: 'assistant', content: content === '' && toolCalls.length > 0 ? null : content, refusal: null };
  if (reasoning !== '') message.reasoning_content = reasoning;
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return {
    index: candidate.index ?? position,
    message,
    finish_reason: fromGeminiFinishReason(candidate.finishReason, toolCalls.length > 0),
    logprobs: null,
  };
}
