/**
 * Upstream SSE bytes → events, as they arrive (eventsource-parser does the framing: LF,
 * CRLF and CR line ends, multi-line data, comments). Layering after Vercel's
 * parse-json-event-stream: bytes → text → events; JSON parsing is the caller's.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { SseEvent } from '../provider.ts';
import { UPSTREAM_TOO_LARGE } from './errors.ts';
import { mapTransportError } from './upstream.ts';

/**
 * Yields each SSE event of `body` in order; never buffers past one network read, nor past
 * `maxEventBytes` of one unfinished event.
 * @throws GatewayError 504 when the gap between chunks exceeds the timeout, 502 when the
 *   connection breaks or one event grows past `maxEventBytes` (`upstream_too_large`).
 */
export async function* sseEvents(
  body: AsyncIterable<Uint8Array>,
  provider: string,
  url: string,
  timeoutMs: number,
  signal?: AbortSignal,
  maxEventBytes = Number.POSITIVE_INFINITY,
): AsyncGenerator<SseEvent> {
  const queue: SseEvent[] = [];
  const parser = createParser({
    onEvent(m: EventSourceMessage) {
      queue.push({ event: m.event, data: m.data });
    },
  });
  const decoder = new TextDecoder();
  // a reader that stops early does not destroy the body here: the caller either destroys it
  // or, when the stream said it is complete, drains it so the connection stays pooled (releaseBody)
  const iterator = (body as { iterator?: (o: { destroyOnReturn: boolean }) => AsyncIterable<Uint8Array> }).iterator;
  const chunks = typeof iterator === 'function' ? iterator.call(body, { destroyOnReturn: false }) : body;
  // bytes fed since the last complete event: the parser buffers an unfinished one whole
  let pending = 0;
  try {
    for await (const buf of chunks) {
      parser.feed(decoder.decode(buf, { stream: true }));
      if (queue.length === 0) {
        pending += buf.byteLength;
        if (pending > maxEventBytes) throw UPSTREAM_TOO_LARGE({ provider, what: 'a stream event', limit: maxEventBytes }, { provider });
        continue;
      }
      pending = 0;
      // index loop + reset instead of shift(): no O(n²) on bursts of events
      for (let i = 0; i < queue.length; i++) {
        const ev = queue[i]!;
        // one read may bring a whole oversized event: refused all the same
        if (ev.data.length > maxEventBytes) throw UPSTREAM_TOO_LARGE({ provider, what: 'a stream event', limit: maxEventBytes }, { provider });
        yield ev;
      }
      queue.length = 0;
    }
  } catch (err) {
    throw mapTransportError(err, provider, url, timeoutMs, signal, 'body');
  }
  // an upstream may omit the blank line after its last event (reset({consume}) would drop it)
  parser.feed(`${decoder.decode()}\n\n`);
  for (let i = 0; i < queue.length; i++) yield queue[i]!;
}
