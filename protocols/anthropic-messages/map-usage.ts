/**
 * Usage between the Messages format and the common format, both ways (the one place that
 * says how cache reads and writes are counted), and the Messages id of a completion. Follows
 * Anthropic's "Prompt caching › Tracking cache performance" and OpenAI's chat completion `usage`.
 */
import { randomUUID } from 'node:crypto';
import type { Usage } from 'gw/plugin';
import type { MessagesUsage } from './types.ts';

/**
 * Messages usage → common usage (tokens). Anthropic's `input_tokens` excludes cache reads and
 * writes, OpenAI's `prompt_tokens` includes them: prompt = input + reads + writes. 1-hour
 * writes are priced apart, so they get `cache_write_1h_tokens`. Missing counts read as 0.
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

/** Adds a stream event's usage to `into` (mutated, returned); a count the event leaves out keeps its value. */
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
 * Common usage → Messages usage (integer tokens ≥ 0), the inverse of {@link fromMessagesUsage}.
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

/** A Messages id (`msg_…`) for a completion id; an empty one (some upstreams send `""`) gets a random id. */
export function toMessageId(completionId: string | null | undefined): string {
  const id = typeof completionId === 'string' ? completionId : '';
  if (/^msg_[A-Za-z0-9_-]+$/.test(id)) return id;
  const body = id.replace(/[^A-Za-z0-9]/g, '');
  return `msg_${body || randomUUID().replace(/-/g, '')}`;
}
