/**
 * Messages `stop_reason` → OpenAI `finish_reason`.
 *
 * @see https://docs.anthropic.com/en/api/handling-stop-reasons
 */
import type { FinishReason } from '../../../core/format/chat.ts';
import type { StopReason } from '../../formats/anthropic-messages/types.ts';

/**
 * `end_turn`, `stop_sequence` and `pause_turn` (a server tool paused the turn) → `stop`;
 * `max_tokens` and `model_context_window_exceeded` → `length`; `tool_use` → `tool_calls`;
 * `refusal` → `content_filter`. A reason newer than this table reads as `stop`, the one
 * value every OpenAI client handles; null stays null (not finished).
 * @see https://docs.anthropic.com/en/api/handling-stop-reasons
 */
export function mapStopReason(reason: StopReason | null | undefined): FinishReason | null {
  switch (reason) {
    case null:
    case undefined:
      return null;
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default:
      return 'stop';
  }
}
