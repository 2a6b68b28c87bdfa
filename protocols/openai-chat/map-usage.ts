/**
 * Usage from OpenAI-compatible vendors that report prompt-cache writes in fields of their
 * own, mapped onto the common format's (`prompt_tokens_details.cache_write_tokens`,
 * `cache_write_1h_tokens`). OpenAI and Zhipu need nothing: their `cached_tokens` and
 * `reasoning_tokens` already are the common fields, and `prompt_tokens` already counts
 * cached input.
 *
 * DashScope (Model Studio) explicit cache: `prompt_tokens` counts all input, and
 * `prompt_tokens_details` adds `cache_creation_input_tokens` (the tokens written),
 * `cache_type: "ephemeral"` and `cache_creation: { ephemeral_5m_input_tokens }` beside
 * `cached_tokens` (the tokens read); some releases nest the count as
 * `cache_creation.cache_creation_input_tokens`.
 * @see Alibaba Cloud Model Studio: Context cache
 */
import { type Usage, isObject } from 'gw/plugin';

/** Cheap test on a chunk's or body's raw text: only text naming a cache creation needs {@link withCacheWrites}. */
export function mayReportCacheWrites(data: string): boolean {
  return data.includes('"cache_creation');
}

/**
 * The usage with the vendor's cache-write count also under the common names; the same
 * object when there is nothing to add (the common field is already there, or no write was
 * reported), so a caller can keep the upstream's bytes. The vendor's fields stay.
 */
export function withCacheWrites(usage: Usage): Usage {
  const d = usage.prompt_tokens_details;
  if (!d || typeof d !== 'object' || d.cache_write_tokens !== undefined) return usage;
  const creation = isObject(d.cache_creation) ? d.cache_creation : undefined;
  const h1 = count(creation?.ephemeral_1h_input_tokens);
  const written = count(d.cache_creation_input_tokens) || count(creation?.cache_creation_input_tokens) || count(creation?.ephemeral_5m_input_tokens) + h1;
  if (written === 0) return usage;
  const details: NonNullable<Usage['prompt_tokens_details']> = { ...d, cache_write_tokens: written };
  if (h1 > 0) details.cache_write_1h_tokens = h1;
  return { ...usage, prompt_tokens_details: details };
}

function count(n: unknown): number {
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.floor(n) : 0;
}
