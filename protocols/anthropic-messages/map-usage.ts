/**
 * Usage between the Messages format and the common format, both ways (the one place that
 * says how cache reads and writes are counted), and the Messages id of a completion.
 *
 * @see https://docs.anthropic.com/en/api/messages (response `usage`)
 * @see https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching#tracking-cache-performance
 * @see https://platform.openai.com/docs/api-reference/chat/object (`usage`)
 */
import { randomUUID } from 'node:crypto';
import type { Usage } from 'gw/plugin';
import type { MessagesUsage } from './types.ts';

/**
 * Messages usage → common usage (OpenAI semantics). Anthropic's `input_tokens` excludes
 * cache reads and writes; OpenAI's `prompt_tokens` includes cached tokens. So
 * prompt = input + cache_read + cache_creation, completion = output (thinking included),
 * and the cache split goes to `prompt_tokens_details`: `cached_tokens` = cache reads,
 * `cache_write_tokens` = cache writes (`cache_creation_input_tokens`, else the sum of the
 * `cache_creation` TTL split), `cache_write_1h_tokens` = `cache_creation.ephemeral_1h_input_tokens`
 * when there are some (1-hour writes are priced apart). Missing or null counts read as 0.
 */
export function fromMessagesUsage(usage: Partial<MessagesUsage> | null | undefined): Usage {
  const input = finite(usage?.input_tokens);
  const cacheRead = finite(usage?.cache_read_input_tokens);
  const split = usage?.cache_creation;
  const hour = finite(split?.ephemeral_1h_input_tokens);
  const cacheWrite = finite(usage?.cache_creation_input_tokens) || finite(split?.ephemeral_5m_input_tokens) + hour;
  const output = finite(usage?.output_tokens);
  const prompt = input + cacheRead + cacheWrite;
  const details: NonNullable<Usage['prompt_tokens_details']> = { cached_tokens: cacheRead, cache_write_tokens: cacheWrite };
  if (hour > 0) details.cache_write_1h_tokens = Math.min(hour, cacheWrite);
  return { prompt_tokens: prompt, completion_tokens: output, total_tokens: prompt + output, prompt_tokens_details: details };
}

const USAGE_FIELDS = ['input_tokens', 'output_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens'] as const;

/**
 * Adds a stream event's usage to what the stream reported so far: `message_start` has the
 * input and cache counts, `message_delta` the cumulative output (and since 2025 may repeat
 * the rest); a count an event leaves out keeps its earlier value, and so does the
 * `cache_creation` TTL split. Mutates and returns `into`.
 */
export function mergeMessagesUsage(into: Partial<MessagesUsage>, next: unknown): Partial<MessagesUsage> {
  if (typeof next !== 'object' || next === null) return into;
  for (const k of USAGE_FIELDS) {
    const n = (next as Record<string, unknown>)[k];
    if (typeof n === 'number') into[k] = n;
  }
  const split = (next as Record<string, unknown>).cache_creation;
  if (typeof split === 'object' && split !== null) into.cache_creation = split as MessagesUsage['cache_creation'];
  return into;
}

function finite(n: unknown): number {
  return typeof n === 'number' && Number.isFinite(n) ? n : 0;
}

/**
 * Token counts, all integers ≥ 0. The common format counts cached tokens inside
 * `prompt_tokens`; the Messages format counts them apart, so
 * `input_tokens = prompt_tokens − cached_tokens − cache_write_tokens` (floored at 0),
 * `cache_read_input_tokens = cached_tokens`, `cache_creation_input_tokens = cache_write_tokens`,
 * `output_tokens = completion_tokens` (reasoning included on both sides); with cache writes,
 * `cache_creation` splits them by TTL (`ephemeral_1h_input_tokens = cache_write_1h_tokens`,
 * the rest 5-minute, Anthropic's default).
 * No usage → zeros: the cache fields are always present because Messages clients add them up.
 */
export function toMessagesUsage(usage: Usage | null | undefined): MessagesUsage {
  const prompt = count(usage?.prompt_tokens);
  const cacheRead = count(usage?.prompt_tokens_details?.cached_tokens);
  const cacheWrite = count(usage?.prompt_tokens_details?.cache_write_tokens);
  const out: MessagesUsage = {
    input_tokens: Math.max(0, prompt - cacheRead - cacheWrite),
    cache_creation_input_tokens: cacheWrite,
    cache_read_input_tokens: cacheRead,
    output_tokens: count(usage?.completion_tokens),
  };
  if (cacheWrite > 0) {
    const hour = Math.min(cacheWrite, count(usage?.prompt_tokens_details?.cache_write_1h_tokens));
    out.cache_creation = { ephemeral_5m_input_tokens: cacheWrite - hour, ephemeral_1h_input_tokens: hour };
  }
  return out;
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
