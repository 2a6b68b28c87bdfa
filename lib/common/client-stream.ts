/**
 * A client's stream made from common chunks (core/pipeline/translated-frames.ts): what a
 * format declares, how the stream closes, and the loop's variant with onStream's steps.
 */
import type { GatewayError } from '../../core/errors.ts';
import { type EventSteps, type HeldChunk, HeldEvent } from '../content/steps.ts';
import type { ContentReader } from '../content/view.ts';
import type { StreamItem } from '../provider.ts';
import type { StreamStep } from '../vendor/side.ts';
import type { ChatCompletionChunk } from './chat.ts';

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
  /** A stream an onStream step cut: the events of the protocol's content-filter finish, terminator included; absent: the cut ends it with `errorFrame`. */
  filtered?(): E[];
  /** Each event the steps let out, in order (only where a stream has steps): what `filtered` may need to close what is open. */
  released?(ev: E): void;
  frames?: undefined;
}

/** The stream's closing events: each shown and encoded, the terminator held back, written after onResponse. */
export async function* closing<E>(s: ClientStream<E>, events: readonly E[], show: ((ev: E) => void) | undefined): AsyncGenerator<string, string | undefined> {
  let last: E | undefined;
  for (const ev of events) {
    show?.(ev);
    if (last === undefined && s.isTerminator?.(ev)) last = ev;
    else yield s.encode(ev);
  }
  if (last === undefined) return s.terminator?.();
  await s.beforeTerminator?.(last);
  return s.encode(last);
}

/** What the stepped loop needs of the request. */
export interface SteppedClient<E> {
  readonly content: ContentReader | undefined;
  /** A stream item as a chunk, its usage and progress recorded. */
  read(item: StreamItem): ChatCompletionChunk;
  /** Shows an event leaving to onChunk (undefined: no tap). */
  readonly show: ((ev: E) => void) | undefined;
}

/** The translated loop with onStream's steps between the format's step and onChunk: events leave as the steps release them; a cut ends the stream. */
export async function* steppedClient<E>(
  items: AsyncIterable<StreamItem>,
  s: ClientStream<E>,
  steps: EventSteps,
  env: SteppedClient<E>,
): AsyncGenerator<string, string | undefined> {
  const { content, show } = env;
  for await (const item of items) {
    for (const ev of s.step.push(env.read(item))) {
      for (const out of released<E>(s, steps.push(new HeldEvent(content, undefined, ev, undefined)))) {
        show?.(out);
        yield s.encode(out);
      }
      if (steps.cut !== undefined) return yield* filtered(s, steps.cut, show);
    }
  }
  const held: HeldChunk[] = [];
  for (const ev of s.step.end()) for (const out of steps.push(new HeldEvent(content, undefined, ev, undefined))) held.push(out);
  for (const out of steps.end()) held.push(out);
  if (steps.cut === undefined) return yield* closing(s, released<E>(s, held), show);
  for (const out of released<E>(s, held)) {
    show?.(out);
    yield s.encode(out);
  }
  return yield* filtered(s, steps.cut, show);
}

/** The format's own event objects the steps released, their edits written in (encoded as any event is), each told to the stream. */
function released<E>(s: ClientStream<E>, held: readonly HeldChunk[]): E[] {
  const out: E[] = [];
  for (const event of held as readonly HeldEvent[]) {
    event.commit();
    const ev = event.value as E;
    s.released?.(ev);
    out.push(ev);
  }
  return out;
}

/** A stream a step cut: the format's content-filter finish and terminator, or (a format without one) the cut thrown, for its error frame. */
async function* filtered<E>(s: ClientStream<E>, cut: GatewayError, show: ((ev: E) => void) | undefined): AsyncGenerator<string, string | undefined> {
  const ending = s.filtered?.();
  if (ending === undefined) throw cut;
  return yield* closing(s, ending, show);
}
