/**
 * A common-format chunk stream → Messages stream events, for POST /v1/messages with
 * `stream: true` served by a common-format upstream.
 *
 * Event grammar produced (the one Messages clients accumulate):
 *   message_start (content_block_start content_block_delta* content_block_stop)* message_delta message_stop
 * Follows Anthropic's "Streaming Messages" and OpenAI's API reference, "Chat: Streaming".
 */
import type { ChatCompletionChunk, FinishReason, ToolCallDelta, Usage } from 'gw/plugin';
import type { StreamStep } from 'gw/plugin/format';
import type { MessagesStreamEvent } from './types.ts';
import type { FromChatOptions } from './from-chat-completion.ts';
import { findStopSequence, toMessagesStopReason } from './map-stop-reason.ts';
import { toMessageId, toMessagesUsage } from './map-usage.ts';

/** The content block currently open; `call` is the upstream tool call index it belongs to. */
type OpenBlock = { kind: 'thinking' | 'text'; index: number } | { kind: 'tool_use'; index: number; call: number };

/**
 * One instance per upstream stream, pure (no I/O); only choice 0 (Messages has no `n`).
 * `message_start` waits for a chunk with a choice or usage, so a filter-results preamble does
 * not lend its id. Usage may follow the finish chunk, so `message_delta` comes from {@link end}.
 * A late fragment of a closed tool call keeps its block's index: blocks cannot reopen.
 */
export class CommonToMessagesStep implements StreamStep<ChatCompletionChunk, MessagesStreamEvent> {
  readonly #opts: FromChatOptions;
  readonly #stopTailLength: number;
  #phase: 'waiting' | 'streaming' | 'ended' = 'waiting';
  #id = '';
  #open: OpenBlock | null = null;
  #nextIndex = 0;
  readonly #toolBlocks = new Map<number, number>();
  #finish: FinishReason | null = null;
  #reportedStop: unknown = undefined;
  #refusal = false;
  #usage: Usage | null = null;
  /** The last characters of the text output, enough to test the stop sequences at the end. */
  #textTail = '';

  /** `opts.requestModel` is echoed in `message_start`; `opts.stopSequences` feed the stop-sequence heuristic. */
  constructor(opts: FromChatOptions) {
    this.#opts = opts;
    let longest = 0;
    for (const s of opts.stopSequences ?? []) if (s.length > longest) longest = s.length;
    this.#stopTailLength = longest;
  }

  /** One upstream chunk → zero or more events. Chunks after {@link end} are ignored. */
  push(chunk: ChatCompletionChunk): MessagesStreamEvent[] {
    if (this.#phase === 'ended') return [];
    const out: MessagesStreamEvent[] = [];
    const choice = chunk.choices?.find((c) => (c.index ?? 0) === 0);
    if (chunk.usage) this.#usage = chunk.usage;
    if (this.#phase === 'waiting') {
      if (!choice && !chunk.usage) return out;
      out.push(this.#start(chunk.id));
    }
    if (!choice) return out;

    const delta = choice.delta ?? {};
    if (nonEmpty(delta.reasoning_content)) this.#appendText(out, 'thinking', delta.reasoning_content);
    if (nonEmpty(delta.content)) {
      this.#appendText(out, 'text', delta.content);
      if (this.#stopTailLength > 0) this.#textTail = (this.#textTail + delta.content).slice(-this.#stopTailLength);
    }
    if (nonEmpty(delta.refusal)) {
      this.#refusal = true;
      this.#appendText(out, 'text', delta.refusal);
    }
    for (const call of delta.tool_calls ?? []) this.#appendToolCall(out, call);

    if (choice.finish_reason) {
      this.#finish = choice.finish_reason;
      this.#reportedStop = choice.stop_reason ?? choice.matched_stop;
    }
    return out;
  }

  /** Upstream ended → `content_block_stop`, `message_delta` (stop reason, final usage), `message_stop`; a whole message even when empty. Idempotent. */
  end(): MessagesStreamEvent[] {
    if (this.#phase === 'ended') return [];
    const out: MessagesStreamEvent[] = [];
    if (this.#phase === 'waiting') out.push(this.#start(''));
    this.#close(out);
    const stop = this.#refusal
      ? { stop_reason: 'refusal', stop_sequence: null }
      : toMessagesStopReason(this.#finish, {
          hasToolUse: this.#toolBlocks.size > 0,
          matchedStop: findStopSequence(this.#textTail, this.#opts.stopSequences, this.#reportedStop),
        });
    out.push({ type: 'message_delta', delta: { ...stop }, usage: toMessagesUsage(this.#usage) });
    out.push({ type: 'message_stop' });
    this.#phase = 'ended';
    return out;
  }

  #start(chunkId: string): MessagesStreamEvent {
    this.#phase = 'streaming';
    this.#id = toMessageId(chunkId);
    return {
      type: 'message_start',
      message: {
        id: this.#id,
        type: 'message',
        role: 'assistant',
        model: this.#opts.requestModel,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...toMessagesUsage(this.#usage), output_tokens: 0 },
      },
    };
  }

  #appendText(out: MessagesStreamEvent[], kind: 'thinking' | 'text', text: string): void {
    if (this.#open?.kind !== kind) {
      this.#close(out);
      const index = this.#nextIndex++;
      this.#open = { kind, index };
      out.push({
        type: 'content_block_start',
        index,
        content_block: kind === 'text' ? { type: 'text', text: '' } : { type: 'thinking', thinking: '', signature: '' },
      });
    }
    const index = this.#open.index;
    out.push({
      type: 'content_block_delta',
      index,
      delta: kind === 'text' ? { type: 'text_delta', text } : { type: 'thinking_delta', thinking: text },
    });
  }

  #appendToolCall(out: MessagesStreamEvent[], call: ToolCallDelta): void {
    const key = typeof call.index === 'number' ? call.index : 0;
    let index = this.#toolBlocks.get(key);
    if (index === undefined) {
      this.#close(out);
      index = this.#nextIndex++;
      this.#toolBlocks.set(key, index);
      this.#open = { kind: 'tool_use', index, call: key };
      out.push({
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: call.id || `toolu_${this.#id.slice(4)}_${key}`, name: call.function?.name ?? '', input: {} },
      });
    }
    const fragment = call.function?.arguments;
    // Empty fragments carry nothing; upstreams send them to open and to close a call.
    if (nonEmpty(fragment)) out.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: fragment } });
  }

  #close(out: MessagesStreamEvent[]): void {
    if (this.#open === null) return;
    out.push({ type: 'content_block_stop', index: this.#open.index });
    this.#open = null;
  }
}

/** One event in SSE framing: `event: <type>\ndata: <json>\n\n`. */
export function encodeMessagesEvent(ev: MessagesStreamEvent): string {
  return `event: ${ev.type}\ndata: ${JSON.stringify(ev)}\n\n`;
}

function nonEmpty(s: unknown): s is string {
  return typeof s === 'string' && s !== '';
}
