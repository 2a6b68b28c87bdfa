/** The tokens a request may use, for its reservation (`gateway.maxCost` prices them). */
import type { RequestContext } from 'gw/plugin';

/** Prompt tokens over-estimated on purpose: the body's UTF-8 bytes / 3 (~1.3× English). */
export function estimatePromptTokens(rawBody: string): number {
  return Math.ceil(Buffer.byteLength(rawBody, 'utf8') / 3);
}

/** Output tokens it may produce: its cap, else `fallback`, at most `served` (`gateway.outputCap`), times its choices. */
export function reserveOutputTokens(rc: RequestContext, fallback: number, served?: number): number {
  if (rc.operation !== 'generate') return 0;
  const asked = rc.maxOutputTokens ?? fallback;
  return (served !== undefined && served < asked ? served : asked) * rc.choices;
}
