/**
 * Gemini `usageMetadata` → common-format `usage`, with OpenAI's semantics: prompt tokens
 * include cached ones, completion tokens include reasoning.
 *
 * @see https://ai.google.dev/api/generate-content#UsageMetadata
 */
import type { Usage } from '../../../core/format/chat.ts';
import type { UsageMetadata } from './types.ts';

/**
 * prompt = promptTokenCount (+ toolUsePromptTokenCount), completion = candidatesTokenCount
 * + thoughtsTokenCount (Gemini counts thoughts apart), total = their sum (what Gemini's
 * `totalTokenCount` is, kept consistent by construction), cached = cachedContentTokenCount,
 * reasoning = thoughtsTokenCount.
 */
export function mapUsage(meta: UsageMetadata): Usage {
  const prompt = (meta.promptTokenCount ?? 0) + (meta.toolUsePromptTokenCount ?? 0);
  const reasoning = meta.thoughtsTokenCount ?? 0;
  const completion = (meta.candidatesTokenCount ?? 0) + reasoning;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: meta.cachedContentTokenCount ?? 0 },
    completion_tokens_details: { reasoning_tokens: reasoning },
  };
}

/** Whether a usageMetadata carries counts (stream chunks may hold only `trafficType`). */
export function hasTokenCounts(meta: UsageMetadata | undefined): meta is UsageMetadata {
  return meta !== undefined && (typeof meta.promptTokenCount === 'number' || typeof meta.candidatesTokenCount === 'number' || typeof meta.totalTokenCount === 'number');
}
