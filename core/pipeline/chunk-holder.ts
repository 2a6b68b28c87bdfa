/**
 * The chunk onChunk taps see, one object reused for every chunk of a stream. Where gw passes
 * an event on without parsing it (a native stream, a common-format chunk that needs no
 * change) `data` is its JSON text and `value` is parsed from it on first read, once for
 * every tap: a tap that finds what it wants in `data`, or wants nothing from this chunk,
 * costs the stream no parse. Where gw built the chunk itself, `value` is that object and
 * `data` is undefined. `content()` is the chunk read format-free, built on first call.
 */
import type { EventContent } from '../../lib/content/types.ts';
import { type ContentReader, EMPTY_EVENT, eventContent, READ_ONLY } from '../../lib/content/view.ts';
import type { Chunk } from '../hooks.ts';

const UNREAD = Symbol('unread');

export class ChunkHolder {
  readonly format: string;
  /** The chunk's JSON text as it goes to the client, when gw has it unparsed. */
  data: string | undefined = undefined;
  private parsed: unknown = UNREAD;
  private readonly reader: ContentReader | undefined;
  private view: EventContent | undefined = undefined;

  /** `reader`: the format's content reader (without one, `content()` is empty). */
  constructor(format: string, reader?: ContentReader) {
    this.format = format;
    this.reader = reader;
  }

  /** The next chunk: its text (`value` then parsed on demand), or its object when gw has one. */
  next(data: string | undefined, value: unknown): Chunk {
    this.data = data;
    this.parsed = value === undefined && data !== undefined ? UNREAD : value;
    this.view = undefined;
    // the holder's type is the format's (ChunkTypes): the loops that call this are generic over it
    return this as unknown as Chunk;
  }

  /** The chunk as an object; undefined for text that is not JSON (it still goes to the client as it came). */
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
