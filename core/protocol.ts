/**
 * A wire protocol as the kernel runs it: its id (a client format's, `Provider.native`'s key,
 * `rc.format`) and its content reader (what extensions read of a request, an answer and a
 * stream event, format-free: lib/content).
 */
import type { ContentReader } from '../lib/content/view.ts';

export type { ContentReader };

/** One wire protocol. */
export interface Protocol {
  /** `anthropic-messages`: the client format's id, `Provider.native`'s key, `rc.format`, onChunk's `chunk.format`. */
  readonly id: string;
  /** A request, an answer and a stream event, format-free; absent: extensions get the empty view. */
  readonly content?: ContentReader;
  /** The GenAI conventions' name of its generate operation: `chat` (default) or `generate_content`. */
  readonly operationName?: string;
}
