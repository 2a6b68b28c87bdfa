/**
 * Why a candidate ended, both ways: Gemini `finishReason` → common-format `finish_reason` (a
 * Gemini upstream's answer), and common `finish_reason` → Gemini `finishReason` (a Gemini
 * client served by a common-format upstream).
 *
 * @see Gemini API reference: FinishReason
 */
import type { FinishReason } from 'gw/plugin';

/** Output withheld or cut by a filter (safety, blocklists, PII, copyright recitation). */
const FILTERED = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'IMAGE_PROHIBITED_CONTENT', 'IMAGE_RECITATION']);

/**
 * Gemini `finishReason` → common `finish_reason`: STOP → `stop`, or `tool_calls` when the
 * candidate produced functionCall parts (Gemini has no finish reason of its own for that);
 * MAX_TOKENS → `length`; the filter family → `content_filter`; anything else (OTHER,
 * LANGUAGE, MALFORMED_FUNCTION_CALL, …) → `stop`, with `tool_calls` again if calls were
 * produced.
 */
export function fromGeminiFinishReason(reason: string | undefined, hasFunctionCall: boolean): FinishReason {
  if (reason === 'MAX_TOKENS') return 'length';
  if (reason !== undefined && FILTERED.has(reason)) return 'content_filter';
  return hasFunctionCall ? 'tool_calls' : 'stop';
}

/**
 * Common `finish_reason` → Gemini `finishReason`: `stop` → STOP, `length` → MAX_TOKENS,
 * `tool_calls` (and legacy `function_call`) → STOP (Gemini ends a function-call turn with
 * STOP), `content_filter` → SAFETY, none given → STOP (the answer is complete as far as gw
 * knows), anything else → OTHER.
 */
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
