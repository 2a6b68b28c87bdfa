/**
 * SSE framing of Responses stream events.
 * @see OpenAI API reference: Responses streaming events
 */
import type { ResponsesStreamEvent } from './types.ts';

/**
 * One event as `event: <type>\ndata: <json>\n\n`: the event name equals `type`, as OpenAI
 * sends it (clients that dispatch on the SSE event name, like the openai SDK's `error`
 * check, need it). No `[DONE]` terminator: the stream ends after the last lifecycle event.
 */
export function encodeResponsesEvent(ev: ResponsesStreamEvent): string {
  return `event: ${ev.type}\ndata: ${JSON.stringify(ev)}\n\n`;
}

/** Events as SSE text, in order. */
export function encodeAll(events: ResponsesStreamEvent[]): string {
  let s = '';
  for (const ev of events) s += encodeResponsesEvent(ev);
  return s;
}
