/**
 * How a Messages stream ends when an onStream step cut it (a guardrail's block): the content
 * block left open is closed, then `message_delta` with `stop_reason: "refusal"` (what Claude's
 * own streaming classifiers send when they stop an answer) and `message_stop`, so the client's
 * parser ends the message cleanly with what it got before the cut.
 * @see https://docs.anthropic.com/en/docs/test-and-evaluate/strengthen-guardrails/handle-streaming-refusals
 */
import type { RequestContext } from 'gw/plugin';
import type { MessagesStreamEvent } from './types.ts';

/** Follows the events a stream let out (their types), and makes its refusal ending. */
export class RefusalEnding {
  readonly #rc: RequestContext;
  #started = 0;
  /** The index of the block started and not stopped, -1 when none. */
  #open = -1;

  constructor(rc: RequestContext) {
    this.#rc = rc;
  }

  /** An event of `type` went to the client. */
  seen(type: string | undefined): void {
    if (type === 'content_block_start') this.#open = this.#started++;
    else if (type === 'content_block_stop') this.#open = -1;
  }

  /** The ending: the open block's stop, the refusal, the message's stop. */
  events(): MessagesStreamEvent[] {
    const out: MessagesStreamEvent[] = [];
    if (this.#open !== -1) out.push({ type: 'content_block_stop', index: this.#open });
    out.push(
      { type: 'message_delta', delta: { stop_reason: 'refusal', stop_sequence: null }, usage: { output_tokens: this.#rc.usage?.completion_tokens ?? 0 } },
      { type: 'message_stop' },
    );
    return out;
  }
}
