/**
 * Recorded events back to SSE bytes: `event:` when the event had a name, one `data:` line per
 * line of its data, a blank line. What the vendors send, minus comments and `id:`/`retry:`
 * fields, which no gw stream reader uses.
 */
import type { RecordedEvent } from './entry.ts';

/** One event as SSE text. */
export function encodeEvent(ev: Pick<RecordedEvent, 'event' | 'data'>): string {
  const head = ev.event === undefined ? '' : `event: ${ev.event}\n`;
  if (!ev.data.includes('\n')) return `${head}data: ${ev.data}\n\n`;
  return `${head}${ev.data
    .split('\n')
    .map((line) => `data: ${line}\n`)
    .join('')}\n`;
}
