/**
 * Common-format usage → Messages usage, and the Messages id of a completion.
 *
 * @see https://docs.anthropic.com/en/api/messages (response `usage`)
 * @see https://platform.openai.com/docs/api-reference/chat/object (`usage`)
 */
import { randomUUID } from 'node:crypto';
import type { Usage } from '../chat.ts';
import type { MessagesUsage } from '../messages.ts';

/**
 * Token counts, all integers ≥ 0. The common format counts cached tokens inside
 * `prompt_tokens`; the Messages format counts them apart, so
 * `input_tokens = prompt_tokens − cached_tokens − cache_write_tokens` (floored at 0),
 * `cache_read_input_tokens = cached_tokens`, `cache_creation_input_tokens = cache_write_tokens`,
 * `output_tokens = completion_tokens` (reasoning included on both sides).
 * No usage → zeros: the cache fields are always present because Messages clients add them up.
 */
export function toMessagesUsage(usage: Usage | null | undefined): MessagesUsage {
  const prompt = count(usage?.prompt_tokens);
  const cacheRead = count(usage?.prompt_tokens_details?.cached_tokens);
  const cacheWrite = count(usage?.prompt_tokens_details?.cache_write_tokens);
  return {
    input_tokens: Math.max(0, prompt - cacheRead - cacheWrite),
    cache_creation_input_tokens: cacheWrite,
    cache_read_input_tokens: cacheRead,
    output_tokens: count(usage?.completion_tokens),
  };
}

function count(n: unknown): number {
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.floor(n) : 0;
}

/**
 * A Messages id for a completion id: kept when it already is one (`msg_` + `[A-Za-z0-9_-]`),
 * else `msg_` + its alphanumerics. An empty id (some upstreams send `""`) gets a random one
 * so two messages never share an id.
 */
export function toMessageId(completionId: string | null | undefined): string {
  const id = typeof completionId === 'string' ? completionId : '';
  if (/^msg_[A-Za-z0-9_-]+$/.test(id)) return id;
  const body = id.replace(/[^A-Za-z0-9]/g, '');
  return `msg_${body || randomUUID().replace(/-/g, '')}`;
}
