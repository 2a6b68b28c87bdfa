/**
 * The chunk onChunk taps see, one object reused for every chunk of a stream. Where gw passes
 * an event on without parsing it (a native stream, a common-format chunk that needs no
 * change) `data` is its JSON text and `value` is parsed from it on first read, once for
 * every tap: a tap that finds what it wants in `data`, or wants nothing from this chunk,
 * costs the stream no parse. Where gw built the chunk itself, `value` is that object and
 * `data` is undefined.
 */
import type { Chunk } from '../hooks.ts';

const UNREAD = Symbol('unread');

export class ChunkHolder {
  readonly format: string;
  /** The chunk's JSON text as it goes to the client, when gw has it unparsed. */
  data: string | undefined = undefined;
  private parsed: unknown = UNREAD;

  constructor(format: string) {
    this.format = format;
  }

  /** The next chunk: its text (`value` then parsed on demand), or its object when gw has one. */
  next(data: string | undefined, value: unknown): Chunk {
    this.data = data;
    this.parsed = value === undefined && data !== undefined ? UNREAD : value;
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
}
