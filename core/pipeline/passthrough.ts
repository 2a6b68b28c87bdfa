/**
 * A native stream forwarded to the client, each event as it came: the loop every passthrough runs, a
 * NativeStep per protocol; events parsed only where gw needs them or a tap reads `value`.
 */
import { READER, type RequestContext } from '../context.ts';
import { type NativeStep, steppedNative } from '../../lib/common/native-stream.ts';
import { isBlank, malformedEvent, objectFramed, parseEventObject } from '../../lib/common/sse-data.ts';
import { type Hooks, streamSteps } from '../hooks.ts';
import { ChunkHolder } from './chunk-holder.ts';
import type { SseEvent } from '../../lib/provider.ts';
import type { SecretRedactor } from '../../lib/redact.ts';

export type { NativeStep, NativeVerdict } from '../../lib/common/native-stream.ts';

/**
 * Frames for `pipeline.stream` from a native stream: each event checked, read, shown to onChunk,
 * framed and yielded; the terminator returned. `secrets`: the provider keys redacted from failures.
 * @throws GatewayError the failure the stream reported (forwarded first), malformed data, or `ended`'s.
 */
export async function* passthroughFrames(
  hooks: Hooks,
  rc: RequestContext,
  format: string,
  events: AsyncIterable<SseEvent>,
  reader: NativeStep,
  secrets: SecretRedactor,
): AsyncGenerator<string, string | undefined> {
  const holder = hooks.onChunk.isUsed() ? new ChunkHolder(format, rc[READER]) : undefined;
  const steps = streamSteps(hooks, rc);
  const provider = rc.provider!;
  if (steps !== undefined) {
    const show = holder && ((data: string | undefined, value: unknown) => hooks.onChunk.call(rc, holder.next(data, value)));
    return yield* steppedNative(events, reader, steps, { provider, content: rc[READER], secrets, show });
  }
  for await (let ev of events) {
    const type = reader.typeOf(ev);
    if (reader.failing(type, ev.data)) ev = { event: ev.event, data: secrets.redact(ev.data) };
    const data = ev.data;
    let parsed: object | undefined;
    if (reader.mustParse(type, data)) {
      if (isBlank(data)) continue;
      parsed = parseEventObject(data, provider);
    } else if (!objectFramed(data)) {
      if (isBlank(data)) continue;
      throw malformedEvent(provider, data);
    }
    const step = reader.read(type, data, parsed);
    // a tap parses the data only if it reads `value` (chunk-holder.ts)
    if (holder !== undefined) hooks.onChunk.call(rc, holder.next(data, parsed));
    const frame = reader.frame(ev, step);
    if (step === 'end') {
      await reader.beforeEnd?.();
      return frame;
    }
    yield frame;
    if (step !== undefined) {
      // forwarded as it came: the client has the upstream's own account of the failure
      step.forwarded = true;
      throw step;
    }
  }
  return reader.ended();
}
