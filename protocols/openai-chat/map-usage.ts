/**
 * Prompt-cache writes that OpenAI-compatible vendors report in fields of their own (DashScope:
 * `prompt_tokens_details.cache_creation_input_tokens`, or nested under `cache_creation`), mapped
 * onto `cache_write_tokens` / `cache_write_1h_tokens`. OpenAI's and Zhipu's need nothing.
 * @see Alibaba Cloud Model Studio: Context cache
 */
import { type Usage, isObject } from 'gw/plugin';

/** Cheap test on a chunk's or body's raw text: only text naming a cache creation needs {@link withCacheWrites}. */
export function mayReportCacheWrites(data: string): boolean {
  return data.includes('"cache_creation');
}

/** The usage with the cache-write count under the common names too; the same object when nothing is added, so a caller can keep the upstream's bytes. */
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
