/**
 * The tokens a request may use before it runs, for the reservation: the gateway prices
 * them (`gateway.maxCost`); what a request did cost is the core's `rc.cost`.
 */
import type { RequestContext } from 'gw/plugin';

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
 * reserve), no more than `served` (the most its providers send a request with:
 * `gateway.outputCap`, e.g. Claude Code's 128,000 lowered to 65,536), times its choices; 0
 * for embeddings.
 */
export function reserveOutputTokens(rc: RequestContext, fallback: number, served?: number): number {
  if (rc.operation !== 'generate') return 0;
  const asked = rc.maxOutputTokens ?? fallback;
  return (served !== undefined && served < asked ? served : asked) * rc.choices;
}
