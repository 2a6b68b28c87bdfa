/** A client's stream made from common chunks, written once: each chunk through the step, each event to onChunk and encoded; the terminator held back. */
import { READER, type RequestContext } from '../context.ts';
import type { ChatCompletionChunk } from '../../lib/common/chat.ts';
import { type ClientStream, closing, steppedClient } from '../../lib/common/client-stream.ts';
import type { StreamProgress } from '../../lib/common/estimate.ts';
import { type Hooks, streamSteps } from '../hooks.ts';
import { ChunkHolder } from './chunk-holder.ts';
import type { StreamItem } from '../../lib/provider.ts';
import { chunkOf } from './upstream-calls.ts';

export type { ClientStream } from '../../lib/common/client-stream.ts';

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
  const steps = streamSteps(hooks, rc);
  if (steps !== undefined) {
    const read = (item: StreamItem): ChatCompletionChunk => {
      const chunk = chunkOf(item, rc.provider);
      progress.chunk(chunk);
      if (chunk.usage) rc.usage = chunk.usage;
      return chunk;
    };
    return yield* steppedClient(items, s, steps, { content: rc[READER], read, show: tapped ? show : undefined });
  }
  for await (const item of items) {
    const chunk = chunkOf(item, rc.provider);
    progress.chunk(chunk);
    if (chunk.usage) rc.usage = chunk.usage;
    for (const ev of s.step.push(chunk)) {
      if (tapped) show(ev);
      yield s.encode(ev);
    }
  }
  return yield* closing(s, s.step.end(), tapped ? show : undefined);
}
