/**
 * Gemini `finishReason` → common-format `finish_reason`.
 *
 * @see https://ai.google.dev/api/generate-content#FinishReason
 */
import type { FinishReason } from '../../../core/format/chat.ts';

/** Output withheld or cut by a filter (safety, blocklists, PII, copyright recitation). */
const FILTERED = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'IMAGE_PROHIBITED_CONTENT', 'IMAGE_RECITATION']);

/**
 * STOP → `stop`, or `tool_calls` when the candidate produced functionCall parts (Gemini
 * has no finish reason of its own for that); MAX_TOKENS → `length`; the filter family →
 * `content_filter`; anything else (OTHER, LANGUAGE, MALFORMED_FUNCTION_CALL, …) → `stop`,
 * with `tool_calls` again if calls were produced.
 */
export function mapFinishReason(reason: string | undefined, hasFunctionCall: boolean): FinishReason {
  if (reason === 'MAX_TOKENS') return 'length';
  if (reason !== undefined && FILTERED.has(reason)) return 'content_filter';
  return hasFunctionCall ? 'tool_calls' : 'stop';
}
