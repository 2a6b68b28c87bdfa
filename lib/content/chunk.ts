/**
 * A stream event as plugins see it. Where gw passes an event on without parsing it (a native
 * stream, a common-format chunk that needs no change) `data` is its JSON text and `value` is
 * parsed from it on first read, once for every reader: one that finds what it wants in
 * `data`, or wants nothing from the event, costs the stream no parse. Where gw built the
 * event itself, `value` is that object and `data` is undefined.
 */
import type { EventContent } from './types.ts';
import { type ContentReader, EMPTY_EVENT, eventContent, READ_ONLY } from './view.ts';

const UNREAD = Symbol('unread');

/** An event's JSON text and, on first read, its object. */
export class EventText {
  /** The event's JSON text as it goes to the client, when gw has it unparsed. */
  data: string | undefined;
  private parsed: unknown;

  constructor(data: string | undefined, value: unknown) {
    this.data = data;
    this.parsed = value === undefined && data !== undefined ? UNREAD : value;
  }

  /** Holds another event: its text (`value` then parsed on demand), or its object. */
  protected hold(data: string | undefined, value: unknown): void {
    this.data = data;
    this.parsed = value === undefined && data !== undefined ? UNREAD : value;
  }

  /** The event as an object; undefined for text that is not JSON (it still goes to the client as it came). */
  get value(): unknown {
    if (this.parsed === UNREAD) {
      try {
        this.parsed = JSON.parse(this.data!);
      } catch {
        this.parsed = undefined;
      }
    }
    return this.parsed;
  }
}

/** The chunk onChunk taps see, one object reused for every chunk of a stream; `content()` is it read format-free, built on first call. */
export class ChunkHolder extends EventText {
  readonly format: string;
  private readonly reader: ContentReader | undefined;
  private view: EventContent | undefined = undefined;

  /** `reader`: the format's content reader (without one, `content()` is empty). */
  constructor(format: string, reader?: ContentReader) {
    super(undefined, undefined);
    this.format = format;
    this.reader = reader;
  }

  /** The next chunk: its text (`value` then parsed on demand), or its object when gw has one. */
  next(data: string | undefined, value: unknown): this {
    this.hold(data, value);
    this.view = undefined;
    return this;
  }

  /** What the chunk adds, format-free; read-only (edits are honoured in onRequest only). */
  content(): EventContent {
    if (this.view !== undefined) return this.view;
    const reader = this.reader;
    return (this.view = reader === undefined ? EMPTY_EVENT : eventContent(reader, this.value, READ_ONLY));
  }

  /** False when the chunk's text shows it carries no finish reason (no parse); true when it may, or gw built the chunk. */
  mightFinish(): boolean {
    const hint = this.reader?.finishHint;
    return hint === undefined || this.data === undefined || hint.test(this.data);
  }
}
