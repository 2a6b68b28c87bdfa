/**
 * What a request may cost before it runs (the reservation) and what it did cost (the
 * settlement), in USD from `[pricing."<model>"]` (USD per million tokens).
 */
import type { RequestContext, Usage } from 'gw/plugin';

/** `[pricing."<model>"]`. */
export interface Price {
  input_per_mtok: number;
  output_per_mtok: number;
}

/**
 * Prompt tokens, over-estimated on purpose: UTF-8 bytes of the whole body / 3. English runs
 * about 4 bytes a token (so this is ~1.3x), CJK about 3 (~1x); JSON framing adds more.
 */
export function estimatePromptTokens(rawBody: string): number {
  return Math.ceil(Buffer.byteLength(rawBody, 'utf8') / 3);
}

/**
 * Output tokens the request may produce: its output cap (`max_tokens`,
 * `max_output_tokens`…, as its format read it), else `fallback` (the model's default
 * reserve), times its choices; 0 for embeddings.
 */
export function reserveOutputTokens(rc: RequestContext, fallback: number): number {
  if (rc.operation !== 'generate') return 0;
  return (rc.maxOutputTokens ?? fallback) * rc.choices;
}

/** USD for `prompt` and `completion` tokens at `price`. */
export function costUsd(price: Price, prompt: number, completion: number): number {
  return (prompt * price.input_per_mtok + completion * price.output_per_mtok) / 1e6;
}

/** USD of reported usage (common semantics: cached prompt tokens and reasoning included). */
export function usageUsd(price: Price, u: Usage): number {
  return costUsd(price, u.prompt_tokens, u.completion_tokens);
}
