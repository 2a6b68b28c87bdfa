/**
 * Event steps (hooks.onStream): what an extension adds to a stream to hold events back and
 * release them later, their text rewritten (the guardrails' rolling window), or to end the
 * stream. The kernel's frame loops hand each event to the steps as a HeldEvent, an object of
 * its own (the onChunk holder is reused, a step keeps events), and send what they release.
 */
import type { GatewayError } from '../../core/errors.ts';
import { EventText } from './chunk.ts';
import { Edits } from './parts.ts';
import type { StreamStep } from '../vendor/side.ts';
import type { EventContent } from './types.ts';
import { type ContentReader, EMPTY_EVENT, eventContent } from './view.ts';

/** A stream event as a step holds it: its view is writable, and an edited event is re-encoded when it leaves. */
export interface HeldChunk {
  content(): EventContent;
}

/**
 * A step over a stream's events that may end the stream: once `cut` is set (after a `push` or
 * `end`), the events that call returned are sent and the stream ends, with the protocol's
 * content-filter finish where it has one (`finish_reason: "content_filter"`, Gemini's
 * `SAFETY`, Messages' `refusal`), else its own error event carrying `cut`.
 */
export interface EventStep<C extends HeldChunk = HeldChunk> extends StreamStep<C, C> {
  readonly cut: GatewayError | undefined;
}

/** An event held by the steps: its JSON text or object, and `tag`, what the loop needs to frame it later. */
export class HeldEvent<T = undefined> extends EventText implements HeldChunk {
  readonly tag: T;
  private readonly reader: ContentReader | undefined;
  private edits: Edits | undefined = undefined;
  private view: EventContent | undefined = undefined;

  constructor(reader: ContentReader | undefined, data: string | undefined, value: unknown, tag: T) {
    super(data, value);
    this.reader = reader;
    this.tag = tag;
  }

  /** What the event adds, format-free; its parts may be set until the event leaves. */
  content(): EventContent {
    if (this.view !== undefined) return this.view;
    if (this.reader === undefined || this.value === undefined) return (this.view = EMPTY_EVENT);
    return (this.view = eventContent(this.reader, this.value, (this.edits = new Edits(true))));
  }

  /** Writes the steps' edits into `value` (closing the view to more); true when the event changed and must be encoded again. */
  commit(): boolean {
    const edits = this.edits;
    if (edits === undefined || !edits.commit()) return false;
    edits.writable = false;
    this.data = undefined;
    return true;
  }
}

/** The steps onStream taps added, chained in tap order: each step's output is the next one's input. */
export class EventSteps<C extends HeldChunk = HeldChunk> {
  /** The last event pushed (a content-filter finish takes its id and model). */
  last: C | undefined = undefined;
  private readonly steps: readonly EventStep<C>[];

  constructor(steps: readonly EventStep<C>[]) {
    this.steps = steps;
  }

  /** The first cut a step made, once one did: the stream ends after what the last call returned. */
  get cut(): GatewayError | undefined {
    for (const step of this.steps) if (step.cut !== undefined) return step.cut;
    return undefined;
  }

  /** Pushes one event through every step; what leaves the last one. */
  push(chunk: C): C[] {
    this.last = chunk;
    let out = this.steps[0]!.push(chunk);
    for (let i = 1; i < this.steps.length; i++) out = this.through(this.steps[i]!, out, false);
    return out;
  }

  /** Flushes every step in order (a step's last events go through the steps after it first). */
  end(): C[] {
    let out: C[] = [];
    for (const step of this.steps) out = this.through(step, out, true);
    return out;
  }

  private through(step: EventStep<C>, input: readonly C[], flush: boolean): C[] {
    const out: C[] = [];
    for (const chunk of input) for (const next of step.push(chunk)) out.push(next);
    if (flush) for (const next of step.end()) out.push(next);
    return out;
  }
}
