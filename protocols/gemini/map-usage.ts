/**
 * Usage both ways between Gemini's `usageMetadata` and the common format's `usage` (OpenAI's
 * semantics: prompt tokens include cached ones, completion tokens include reasoning).
 * @see Gemini API reference: UsageMetadata
 */
import type { Usage } from 'gw/plugin';
import type { UsageMetadata } from './types.ts';

/**
 * Common usage → `usageMetadata` (integer tokens ≥ 0). Both count cached tokens inside the
 * prompt; Gemini counts reasoning apart (`thoughtsTokenCount`), the common format inside completion.
 */
export function toUsageMetadata(usage: Usage): UsageMetadata {
  const prompt = count(usage.prompt_tokens);
  const completion = count(usage.completion_tokens);
  const reasoning = Math.min(completion, count(usage.completion_tokens_details?.reasoning_tokens));
  const cached = count(usage.prompt_tokens_details?.cached_tokens);
  const meta: UsageMetadata = { promptTokenCount: prompt, candidatesTokenCount: completion - reasoning };
  if (reasoning > 0) meta.thoughtsTokenCount = reasoning;
  meta.totalTokenCount = typeof usage.total_tokens === 'number' && usage.total_tokens >= prompt + completion ? count(usage.total_tokens) : prompt + completion;
  if (cached > 0) meta.cachedContentTokenCount = cached;
  return meta;
}

function count(n: unknown): number {
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.floor(n) : 0;
}

/** `usageMetadata` → common usage; completion = candidates + thoughts, total their sum (consistent by construction). */
export function fromUsageMetadata(meta: UsageMetadata): Usage {
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
  return (
    meta !== undefined &&
    (typeof meta.promptTokenCount === 'number' || typeof meta.candidatesTokenCount === 'number' || typeof meta.totalTokenCount === 'number')
  );
}
