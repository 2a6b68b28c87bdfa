/**
 * Why a candidate ended, Gemini `finishReason` ⇄ common `finish_reason`.
 * @see Gemini API reference: FinishReason
 */
import type { FinishReason } from 'gw/plugin';

/** Output withheld or cut by a filter (safety, blocklists, PII, copyright recitation). */
const FILTERED = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'IMAGE_PROHIBITED_CONTENT', 'IMAGE_RECITATION']);

/** Gemini `finishReason` → `finish_reason`; `tool_calls` when the candidate made calls (Gemini has no reason of its own for that). */
export function fromGeminiFinishReason(reason: string | undefined, hasFunctionCall: boolean): FinishReason {
  if (reason === 'MAX_TOKENS') return 'length';
  if (reason !== undefined && FILTERED.has(reason)) return 'content_filter';
  return hasFunctionCall ? 'tool_calls' : 'stop';
}

/** `finish_reason` → Gemini `finishReason`; tool calls end with STOP, as Gemini ends a function-call turn. */
export function toGeminiFinishReason(reason: FinishReason | null | undefined): string {
  switch (reason) {
    case 'stop':
    case 'tool_calls':
    case 'function_call':
    case null:
    case undefined:
      return 'STOP';
    case 'length':
      return 'MAX_TOKENS';
    case 'content_filter':
      return 'SAFETY';
    default:
      return 'OTHER';
  }
}

/**
 * The response that ends a stream gw's own filter cut (an onStream step, e.g. a guardrail): one
 * candidate per choice finishing with SAFETY, as Gemini ends a candidate its safety filter stopped.
 */
export function filteredResponse(model: string, candidates: number): string {
  const list: string[] = [];
  for (let index = 0; index < candidates; index++) list.push(`{"content":{"role":"model","parts":[]},"finishReason":"SAFETY","index":${index}}`);
  return `{"candidates":[${list.join(',')}],"modelVersion":${JSON.stringify(model)}}`;
}
