/**
 * Usage both ways between the common format and Responses.
 * @see OpenAI API reference: The response object › usage, The chat completion object (`usage`)
 */
import type { Usage } from 'gw/plugin';
import type { ResponsesUsage } from './types.ts';

/**
 * Common usage → Responses usage (integer tokens ≥ 0, same semantics, renamed fields). No usage
 * → `null`: zeros would read as a free answer.
 */
export function toResponsesUsage(usage: Usage | null | undefined): ResponsesUsage | null {
  if (!usage) return null;
  const input = count(usage.prompt_tokens);
  const output = count(usage.completion_tokens);
  const total = count(usage.total_tokens);
  const details: ResponsesUsage['input_tokens_details'] = {
    cached_tokens: count(usage.prompt_tokens_details?.cached_tokens),
    cache_write_tokens: count(usage.prompt_tokens_details?.cache_write_tokens),
  };
  const h1 = count(usage.prompt_tokens_details?.cache_write_1h_tokens);
  if (h1 > 0) details.cache_write_1h_tokens = h1;
  return {
    input_tokens: input,
    input_tokens_details: details,
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: count(usage.completion_tokens_details?.reasoning_tokens) },
    total_tokens: total > 0 ? total : input + output,
  };
}

function count(n: unknown): number {
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.floor(n) : 0;
}

/** A native upstream's `response.usage` → common usage, for accounting; undefined when there is none (a failed or cut response). */
export function fromResponsesUsage(u: unknown): Usage | undefined {
  if (typeof u !== 'object' || u === null) return undefined;
  const r = u as Partial<ResponsesUsage>;
  const input = count(r.input_tokens);
  const output = count(r.output_tokens);
  const total = count(r.total_tokens);
  const usage: Usage = { prompt_tokens: input, completion_tokens: output, total_tokens: total > 0 ? total : input + output };
  // DashScope's Responses API reports its cache counts under the chat names (`prompt_tokens_details`)
  const d = r.input_tokens_details ?? (r as { prompt_tokens_details?: Record<string, unknown> }).prompt_tokens_details;
  const cached = count(d?.cached_tokens);
  const written = count(d?.cache_write_tokens) || count(d?.cache_creation_input_tokens);
  const h1 = count(d?.cache_write_1h_tokens);
  if (cached > 0 || written > 0) {
    const details: NonNullable<Usage['prompt_tokens_details']> = { cached_tokens: cached };
    if (written > 0) details.cache_write_tokens = written;
    if (h1 > 0) details.cache_write_1h_tokens = h1;
    usage.prompt_tokens_details = details;
  }
  const reasoning = count(r.output_tokens_details?.reasoning_tokens);
  if (reasoning > 0) usage.completion_tokens_details = { reasoning_tokens: reasoning };
  return usage;
}
