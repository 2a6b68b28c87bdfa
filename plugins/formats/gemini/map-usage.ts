/**
 * Common-format `usage` → Gemini `usageMetadata`.
 *
 * @see https://ai.google.dev/api/generate-content#UsageMetadata
 */
import type { Usage } from '../../../core/format/chat.ts';
import type { UsageMetadata } from './types.ts';

/**
 * Both formats count cached tokens inside the prompt count; they differ on reasoning, which
 * the common format counts inside `completion_tokens` and Gemini apart:
 * `promptTokenCount = prompt_tokens`, `candidatesTokenCount = completion_tokens − reasoning`,
 * `thoughtsTokenCount = reasoning` (only when > 0, as Gemini omits it),
 * `cachedContentTokenCount = cached_tokens` (only when > 0), `totalTokenCount = total_tokens`
 * (prompt + completion when absent). Counts are integers ≥ 0.
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
