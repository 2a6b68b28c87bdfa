/** A usage's parts read one way by every accounting view: integers ≥ 0, each bounded by its whole; no allocation. */
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

/** Cached / prompt tokens (0…1, 4 decimals); null without prompt tokens. */
export function cacheHitRate(cached: number, prompt: number): number | null {
  return prompt > 0 ? Math.round((Math.min(cached, prompt) / prompt) * 1e4) / 1e4 : null;
}
