/**
 * Common-format `finish_reason` → Gemini `finishReason`.
 *
 * @see https://ai.google.dev/api/generate-content#FinishReason
 */
import type { FinishReason } from '../../../core/format/chat.ts';

/**
 * `stop` → STOP, `length` → MAX_TOKENS, `tool_calls` (and legacy `function_call`) → STOP
 * (Gemini ends a function-call turn with STOP), `content_filter` → SAFETY, none given → STOP
 * (the answer is complete as far as gw knows), anything else → OTHER.
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
