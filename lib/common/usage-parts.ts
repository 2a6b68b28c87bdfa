/**
 * The parts of a common-format {@link Usage}, read the one way every accounting view
 * (usage, request log, metrics, console) reads them: integers ≥ 0, each part bounded by
 * its whole so a vendor's odd report cannot make a part larger than the total it is part
 * of (cache reads ≤ prompt, cache writes ≤ prompt − reads, 1-hour writes ≤ writes,
 * reasoning ≤ completion). No allocation: these run once per finished request.
 */
import type { Usage } from './chat.ts';

function count(v: unknown): number {
  return typeof v === 'number' && v > 0 && Number.isFinite(v) ? Math.floor(v) : 0;
}

/** `prompt_tokens`: all input, cache reads and writes included. */
export function promptTokens(u: Usage | null | undefined): number {
  return count(u?.prompt_tokens);
}

/** `completion_tokens`: all output, reasoning included. */
export function completionTokens(u: Usage | null | undefined): number {
  return count(u?.completion_tokens);
}

/** `prompt_tokens_details.cached_tokens`: prompt tokens read from the vendor's prompt cache. */
export function cachedTokens(u: Usage | null | undefined): number {
  return Math.min(count(u?.prompt_tokens_details?.cached_tokens), promptTokens(u));
}

/** `prompt_tokens_details.cache_write_tokens`: prompt tokens written to the prompt cache, every TTL. */
export function cacheWriteTokens(u: Usage | null | undefined): number {
  return Math.min(count(u?.prompt_tokens_details?.cache_write_tokens), promptTokens(u) - cachedTokens(u));
}

/** `prompt_tokens_details.cache_write_1h_tokens`: of the cache writes, those at the 1-hour TTL. */
export function cacheWrite1hTokens(u: Usage | null | undefined): number {
  return Math.min(count(u?.prompt_tokens_details?.cache_write_1h_tokens), cacheWriteTokens(u));
}

/** `completion_tokens_details.reasoning_tokens`: the reasoning (thinking) part of the output. */
export function reasoningTokens(u: Usage | null | undefined): number {
  return Math.min(count(u?.completion_tokens_details?.reasoning_tokens), completionTokens(u));
}

/**
 * The cache hit rate of a sum of usages: cached / prompt tokens, the share of input read
 * from a prompt cache (0…1, 4 decimals); null when there was no prompt token to read.
 */
export function cacheHitRate(cached: number, prompt: number): number | null {
  return prompt > 0 ? Math.round((Math.min(cached, prompt) / prompt) * 1e4) / 1e4 : null;
}
