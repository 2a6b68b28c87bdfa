/**
 * A native stream forwarded to the client, each event as it came: the loop every passthrough runs, a
 * NativeStep per protocol; events parsed only where gw needs them or a tap reads `value`.
 */
import { READER, type RequestContext } from '../context.ts';
import type { GatewayError } from '../errors.ts';
import { isBlank, malformedEvent, objectFramed, parseEventObject } from '../../lib/common/sse-data.ts';
import type { Hooks } from '../hooks.ts';
import { ChunkHolder } from './chunk-holder.ts';
import type { SseEvent } from '../../lib/provider.ts';
import type { SecretRedactor } from '../../lib/redact.ts';

/** What one event means for the stream: go on, the terminator, or a failure (forwarded, then thrown). */
export type NativeVerdict = undefined | 'end' | GatewayError;

/** A protocol's reading of its own stream forwarded, one per stream: pure but for `rc.usage` and the stream's progress. */
export interface NativeStep {
  /** The event's type: its SSE `event:` name, or one read from its data without parsing it. */
  typeOf(ev: SseEvent): string | undefined;
  /** True when gw must parse this event whoever listens (usage, a failure, the end). */
  mustParse(type: string | undefined, data: string): boolean;
  /** True for an event that reports a failure: it is read and forwarded with the provider keys redacted (an upstream may quote its credentials there). */
  failing(type: string | undefined, data: string): boolean;
  /** Reads one event (`parsed`: its data as an object when `mustParse` said so), updating `rc.usage` and the progress. */
  read(type: string | undefined, data: string, parsed: object | undefined): NativeVerdict;
  /** The frame the client gets for the event (`step` is what `read` made of it). */
  frame(ev: SseEvent, step: NativeVerdict): string;
  /** Runs before the terminator frame is returned (e.g. storing the final response). */
  beforeEnd?(): Promise<void>;
  /** The upstream ended without a terminal event: the terminator frame (undefined: none). @throws 502 `upstream_truncated`, or an earlier failure */
  ended(): string | undefined;
  /** A failure gw noticed after the first byte (cut, timeout, malformed), as one frame of this protocol. */
  errorFrame(err: GatewayError): string;
}

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
  const provider = rc.provider!;
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
