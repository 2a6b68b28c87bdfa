/**
 * Why a message ended, both ways: a Messages `stop_reason` → a common-format
 * `finish_reason` (a Messages upstream's answer), and a common `finish_reason` → a Messages
 * `stop_reason` + `stop_sequence` (/v1/messages served by a common-format upstream).
 *
 * @see https://docs.anthropic.com/en/api/handling-stop-reasons
 * @see https://docs.anthropic.com/en/api/messages (response `stop_reason`, `stop_sequence`)
 * @see https://platform.openai.com/docs/api-reference/chat/object (`finish_reason`)
 */
import type { FinishReason } from 'gw/plugin';
import type { StopReason } from './types.ts';

/**
 * Messages `stop_reason` → common `finish_reason`: `end_turn`, `stop_sequence` and
 * `pause_turn` (a server tool paused the turn) → `stop`; `max_tokens` and
 * `model_context_window_exceeded` → `length`; `tool_use` → `tool_calls`; `refusal` →
 * `content_filter`. A reason newer than this table reads as `stop`, the one value every
 * OpenAI client handles; null stays null (not finished).
 * @see https://docs.anthropic.com/en/api/handling-stop-reasons
 */
export function fromMessagesStopReason(reason: StopReason | null | undefined): FinishReason | null {
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

export interface StopInfo {
  stop_reason: StopReason;
  stop_sequence: string | null;
}

/**
 * Common `finish_reason` → Messages `stop_reason`: stop → end_turn (stop_sequence when
 * `matchedStop` is set), length → max_tokens, tool_calls/function_call → tool_use,
 * content_filter/sensitive → refusal.
 *
 * `hasToolUse`: the answer carries tool calls. Some upstreams say `stop` there; agent loops
 * key on `stop_reason === "tool_use"` to run the tools, so tool calls win over `stop`.
 * A missing or unknown reason (an upstream's own error values, a stream cut short) becomes
 * `end_turn`: clients treat `stop_reason` as a closed set, and `end_turn` is the one that
 * makes them hand the turn back to the user instead of looping.
 */
export function toMessagesStopReason(finish: FinishReason | null | undefined, opts: { hasToolUse?: boolean; matchedStop?: string | null } = {}): StopInfo {
  switch (finish) {
    case 'length':
      return { stop_reason: 'max_tokens', stop_sequence: null };
    case 'tool_calls':
    case 'function_call':
      return { stop_reason: 'tool_use', stop_sequence: null };
    case 'content_filter':
    case 'sensitive':
      return { stop_reason: 'refusal', stop_sequence: null };
    default:
      if (opts.hasToolUse) return { stop_reason: 'tool_use', stop_sequence: null };
      if (finish === 'stop' && opts.matchedStop) return { stop_reason: 'stop_sequence', stop_sequence: opts.matchedStop };
      return { stop_reason: 'end_turn', stop_sequence: null };
  }
}

/**
 * Which of the request's `stop_sequences` ended the output, or null.
 *
 * The common format does not say which stop string fired, so this is a heuristic, in order:
 * 1. `reported`: a string some OpenAI-compatible servers put in `choice.stop_reason` or
 *    `choice.matched_stop`, trusted only if it is one of the request's stop strings;
 * 2. the output text ends with a stop string (servers that keep the stop string in the
 *    output); the longest match wins.
 * Upstreams that strip the stop string and report nothing cannot be told apart from a
 * natural end, so the answer is `end_turn` there.
 */
export function findStopSequence(text: string, stopSequences: readonly string[] | undefined, reported?: unknown): string | null {
  if (!stopSequences || stopSequences.length === 0) return null;
  if (typeof reported === 'string' && stopSequences.includes(reported)) return reported;
  let best: string | null = null;
  for (const s of stopSequences) {
    if (s && text.endsWith(s) && (best === null || s.length > best.length)) best = s;
  }
  return best;
}
