/**
 * A native stream as the passthrough loop reads it (core/pipeline/passthrough.ts): what each
 * protocol's reader implements, the check every event passes, and the loop's variant with
 * onStream's steps, where events leave as the steps release them.
 */
import type { GatewayError } from '../../core/errors.ts';
import type { ContentReader } from '../content/view.ts';
import { type EventSteps, HeldEvent } from '../content/steps.ts';
import type { SseEvent } from '../provider.ts';
import type { SecretRedactor } from '../redact.ts';
import { isBlank, malformedEvent, objectFramed, parseEventObject } from './sse-data.ts';

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
  /** A stream an onStream step cut: the frames of the protocol's content-filter finish, terminator included; absent: the cut ends it with `errorFrame`. */
  filtered?(): string;
  /** Each event the steps let out, in order (only where a stream has steps): what `filtered` may need to close what is open. */
  released?(ev: SseEvent): void;
}

const BLANK = Symbol('blank');

/** The event's data as an object when the reader must parse it, undefined when not, BLANK for an empty event (the passthrough loop's own test, written inline there: no call per event). @throws malformed data */
function checkedEvent(reader: NativeStep, type: string | undefined, data: string, provider: string): object | undefined | typeof BLANK {
  if (reader.mustParse(type, data)) return isBlank(data) ? BLANK : parseEventObject(data, provider);
  if (objectFramed(data)) return undefined;
  if (isBlank(data)) return BLANK;
  throw malformedEvent(provider, data);
}

/** An event as the steps hold it: the event as read, and what the reader made of it. */
type Read = { readonly ev: SseEvent; readonly step: NativeVerdict };

/** What the stepped loop needs of the request. */
export interface SteppedNative {
  readonly provider: string;
  readonly content: ContentReader | undefined;
  readonly secrets: SecretRedactor;
  /** Shows an event leaving to onChunk (undefined: no tap). */
  readonly show: ((data: string | undefined, value: unknown) => void) | undefined;
}

/**
 * The passthrough loop with onStream's steps between reading an event and onChunk: events
 * leave as the steps release them, an edited one framed from its object (its `event:` name
 * kept); a terminal event flushes the steps; a cut ends the stream (the protocol's
 * content-filter finish, else the cut thrown for its error frame).
 */
export async function* steppedNative(
  events: AsyncIterable<SseEvent>,
  reader: NativeStep,
  steps: EventSteps,
  env: SteppedNative,
): AsyncGenerator<string, string | undefined> {
  const show = env.show;
  const frameOf = (held: HeldEvent<Read>): string => {
    const edited = held.commit();
    show?.(held.data, held.value);
    const ev = held.tag.ev;
    reader.released?.(ev);
    return reader.frame(edited ? { event: ev.event, data: JSON.stringify(held.value) } : ev, held.tag.step);
  };
  for await (let ev of events) {
    const type = reader.typeOf(ev);
    if (reader.failing(type, ev.data)) ev = { event: ev.event, data: env.secrets.redact(ev.data) };
    const data = ev.data;
    const parsed = checkedEvent(reader, type, data, env.provider);
    if (parsed === BLANK) continue;
    const step = reader.read(type, data, parsed);
    const out = steps.push(new HeldEvent<Read>(env.content, data, parsed, { ev, step })) as HeldEvent<Read>[];
    // the terminator or a failure: nothing comes after it, the steps give back what they hold
    if (step !== undefined && steps.cut === undefined) for (const held of steps.end()) out.push(held as HeldEvent<Read>);
    for (const held of out) {
      const frame = frameOf(held);
      const verdict = held.tag.step;
      if (verdict === 'end') {
        await reader.beforeEnd?.();
        return frame;
      }
      yield frame;
      if (verdict !== undefined) {
        verdict.forwarded = true;
        throw verdict;
      }
    }
    if (steps.cut !== undefined) return cutEnding(reader, steps.cut);
  }
  for (const held of steps.end()) yield frameOf(held as HeldEvent<Read>);
  if (steps.cut !== undefined) return cutEnding(reader, steps.cut);
  return reader.ended();
}

/** The end of a stream a step cut: the protocol's content-filter finish, else the cut thrown (its error frame follows). */
function cutEnding(reader: NativeStep, cut: GatewayError): string {
  const ending = reader.filtered?.();
  if (ending === undefined) throw cut;
  return ending;
}
