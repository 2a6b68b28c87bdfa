/** A client's stream made from common chunks, written once: each chunk through the step, each event to onChunk and encoded; the terminator held back. */
import { READER, type RequestContext } from '../context.ts';
import type { GatewayError } from '../errors.ts';
import type { ChatCompletionChunk } from '../../lib/common/chat.ts';
import type { StreamProgress } from '../../lib/common/estimate.ts';
import type { Hooks } from '../hooks.ts';
import { ChunkHolder } from './chunk-holder.ts';
import type { StreamItem } from '../../lib/provider.ts';
import type { StreamStep } from '../../lib/vendor/side.ts';
import { chunkOf } from './upstream-calls.ts';

/** A client's stream made from common chunks: the step that makes its events, and how they are framed. */
export interface ClientStream<E> {
  step: StreamStep<ChatCompletionChunk, E>;
  /** One event as a frame (`event: …\ndata: …\n\n`, a JSON array element…). */
  encode(ev: E): string;
  /** Which closing event is the terminator: held back, encoded and returned after onResponse. */
  isTerminator?(ev: E): boolean;
  /** Runs with the terminator event before it is returned (e.g. storing the final response). */
  beforeTerminator?(ev: E): Promise<void>;
  /** The terminator frame when no event is one (a JSON array's `]`), asked for at the end. */
  terminator?(): string | undefined;
  /** A failure after the first byte, as one frame of the client's protocol. */
  errorFrame(err: GatewayError): string;
  frames?: undefined;
}

/**
 * Frames for `pipeline.stream`: `items` through the format's step (`format` names the onChunk chunk type). `rc.usage` follows the
 * chunks' usage; `progress` counts what was sent (charged if the stream ends early).
 */
export async function* translatedFrames<E>(
  hooks: Hooks,
  rc: RequestContext,
  format: string,
  items: AsyncIterable<StreamItem>,
  progress: StreamProgress,
  s: ClientStream<E>,
): AsyncGenerator<string, string | undefined> {
  const tapped = hooks.onChunk.isUsed();
  const holder = new ChunkHolder(format, rc[READER]);
  const show = (ev: E): void => hooks.onChunk.call(rc, holder.next(undefined, ev));
  for await (const item of items) {
    const chunk = chunkOf(item, rc.provider);
    progress.chunk(chunk);
    if (chunk.usage) rc.usage = chunk.usage;
    for (const ev of s.step.push(chunk)) {
      if (tapped) show(ev);
      yield s.encode(ev);
    }
  }
  let last: E | undefined;
  for (const ev of s.step.end()) {
    if (tapped) show(ev);
    if (last === undefined && s.isTerminator?.(ev)) last = ev;
    else yield s.encode(ev);
  }
  if (last === undefined) return s.terminator?.();
  await s.beforeTerminator?.(last);
  return s.encode(last);
}
