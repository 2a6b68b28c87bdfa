/**
 * Messages usage → OpenAI usage, with OpenAI's semantics.
 *
 * @see https://docs.anthropic.com/en/api/messages (usage)
 * @see https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching#tracking-cache-performance
 */
import type { Usage } from '../../../core/format/chat.ts';
import type { MessagesUsage } from '../../../core/format/messages.ts';

/**
 * Anthropic's `input_tokens` excludes cache reads and writes; OpenAI's `prompt_tokens`
 * includes cached tokens. So prompt = input + cache_read + cache_creation,
 * completion = output (thinking included), and the cache split goes to
 * `prompt_tokens_details`. Missing or null counts read as 0.
 * @see https://docs.anthropic.com/en/api/messages
 */
export function mapUsage(usage: Partial<MessagesUsage> | null | undefined): Usage {
  const input = count(usage?.input_tokens);
  const cacheRead = count(usage?.cache_read_input_tokens);
  const cacheWrite = count(usage?.cache_creation_input_tokens);
  const output = count(usage?.output_tokens);
  const prompt = input + cacheRead + cacheWrite;
  return {
    prompt_tokens: prompt,
    completion_tokens: output,
    total_tokens: prompt + output,
    prompt_tokens_details: { cached_tokens: cacheRead, cache_write_tokens: cacheWrite },
  };
}

function count(n: unknown): number {
  return typeof n === 'number' && Number.isFinite(n) ? n : 0;
}
