/**
 * Why a message ended, Messages `stop_reason` ⇄ common `finish_reason`. Follows Anthropic's
 * "Handling stop reasons" and OpenAI's API reference, "The chat completion object".
 */
import type { FinishReason } from 'gw/plugin';
import type { StopReason } from './types.ts';

/** Messages `stop_reason` → `finish_reason`; an unknown reason reads as `stop`, the one every OpenAI client handles. */
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
 * `finish_reason` → Messages `stop_reason`. Tool calls (`hasToolUse`) win over `stop`: agent
 * loops run tools only on `tool_use`. Unknown reasons → `end_turn`, which hands the turn back
 * instead of looping.
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
 * Which of the request's `stop_sequences` ended the output, or null. A heuristic (the common
 * format does not say): `reported` (`stop_reason`/`matched_stop` of some servers) if it is one
 * of them, else the longest one the text ends with.
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
