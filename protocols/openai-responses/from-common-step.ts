/**
 * A common-format chunk stream → Responses stream events, for POST /v1/responses with
 * `stream: true` served by translation.
 *
 * Event grammar produced (the one OpenAI sends and its SDKs accumulate), `sequence_number`
 * counting from 0 by one:
 *
 *   response.created response.in_progress
 *   ( output_item.added
 *       ( content_part.added (output_text.delta* output_text.done | refusal.delta* refusal.done) content_part.done )*   message
 *     | content_part.added reasoning_text.delta* reasoning_text.done content_part.done                                 reasoning
 *     | function_call_arguments.delta* function_call_arguments.done                                                     function_call
 *     output_item.done )*
 *   (response.completed | response.incomplete)
 *
 * Follows OpenAI's API reference, "Responses: Streaming events" and "Chat: Streaming".
 */
import type { ChatCompletionChunk, FinishReason, ToolCallDelta, Usage } from 'gw/plugin';
import type { StreamStep } from 'gw/plugin/format';
import { functionCallItem } from './from-chat-completion.ts';
import { mapStatus } from './map-status.ts';
import { toResponsesUsage } from './map-usage.ts';
import { type FromChatOptions, itemId, responseBase } from './response-base.ts';
import { type StreamFailure, streamFailureEvents } from './stream-failure.ts';
import type { ResponsesOutputItem, ResponsesOutputMessage, ResponsesReasoningItem, ResponsesResponse, ResponsesStreamEvent } from './types.ts';

/** Shared by every text event: gw has no logprobs to give (never mutated). */
const NO_LOGPROBS: unknown[] = Object.freeze([]) as unknown as unknown[];

type ItemStatus = 'completed' | 'incomplete';

/** The open message or reasoning item, and its open content part. */
interface OpenItem {
  kind: 'message' | 'reasoning';
  index: number;
  id: string;
  /** Finished parts of a message. */
  parts: ResponsesOutputMessage['content'];
  part: { kind: 'text' | 'refusal' | 'reasoning'; text: string } | null;
}

/** One function call item, keyed by the upstream's tool call index. */
interface CallState {
  index: number;
  id: string;
  callId: string;
  name: string;
  args: string;
  open: boolean;
}

/**
 * One instance per upstream stream, pure (no I/O). Ids are gw's own ({@link responseBase}),
 * so the stream can start before the upstream answers. `reasoning_content` → a `reasoning`
 * item, `content` / `refusal` → parts of a `message` item, each tool call index → a
 * `function_call` item; only choice 0 (Responses has no `n`). Function call items stay open
 * until text starts or the stream ends, so interleaved parallel-call fragments land right.
 */
export class CommonToResponsesStep implements StreamStep<ChatCompletionChunk, ResponsesStreamEvent> {
  readonly #opts: FromChatOptions;
  readonly #base: ResponsesResponse;
  #seq = 0;
  #phase: 'waiting' | 'streaming' | 'ended' = 'waiting';
  readonly #output: ResponsesOutputItem[] = [];
  #open: OpenItem | null = null;
  readonly #calls = new Map<number, CallState>();
  #openCalls: CallState[] = [];
  #finish: FinishReason | null = null;
  #usage: Usage | null = null;

  constructor(opts: FromChatOptions) {
    this.#opts = opts;
    this.#base = responseBase(opts);
  }

  /** The response id (`resp_…`) the events carry. */
  get id(): string {
    return this.#base.id;
  }

  /** The number the next event will carry. */
  get nextSequenceNumber(): number {
    return this.#seq;
  }

  /** `response.created` and `response.in_progress` before any upstream chunk; nothing when already started. */
  start(): ResponsesStreamEvent[] {
    if (this.#phase !== 'waiting') return [];
    const out: ResponsesStreamEvent[] = [];
    this.#start(out);
    return out;
  }

  /** One upstream chunk → zero or more events. Chunks after {@link end} are ignored. */
  push(chunk: ChatCompletionChunk): ResponsesStreamEvent[] {
    if (this.#phase === 'ended') return [];
    const out: ResponsesStreamEvent[] = [];
    if (this.#phase === 'waiting') this.#start(out);
    if (chunk.usage) this.#usage = chunk.usage;
    const choices = chunk.choices;
    if (!choices || choices.length === 0) return out;
    const choice = choices[0].index === 0 || choices[0].index === undefined ? choices[0] : choices.find((c) => c.index === 0);
    if (!choice) return out;

    const delta = choice.delta;
    if (delta) {
      if (nonEmpty(delta.reasoning_content)) this.#appendText(out, 'reasoning', 'reasoning', delta.reasoning_content);
      if (nonEmpty(delta.content)) this.#appendText(out, 'message', 'text', delta.content);
      if (nonEmpty(delta.refusal)) this.#appendText(out, 'message', 'refusal', delta.refusal);
      const calls = delta.tool_calls;
      if (calls) for (const call of calls) this.#appendToolCall(out, call);
    }
    if (choice.finish_reason) this.#finish = choice.finish_reason;
    return out;
  }

  /** Upstream ended → close every open item, then `response.completed` or `.incomplete` ({@link mapStatus}) with output and usage. Idempotent. */
  end(): ResponsesStreamEvent[] {
    if (this.#phase === 'ended') return [];
    const out: ResponsesStreamEvent[] = [];
    if (this.#phase === 'waiting') this.#start(out);
    const status = mapStatus(this.#finish);
    const last = status.status === 'incomplete' ? 'incomplete' : 'completed';
    this.#closeItem(out, last);
    this.#closeCalls(out, last);
    const response: ResponsesResponse = {
      ...this.#base,
      status: status.status,
      completed_at: status.status === 'completed' ? Math.floor(Date.now() / 1000) : null,
      incomplete_details: status.incomplete_details,
      output: this.#output,
      usage: toResponsesUsage(this.#usage),
    };
    out.push({ type: status.status === 'completed' ? 'response.completed' : 'response.incomplete', response, sequence_number: this.#seq++ });
    this.#phase = 'ended';
    return out;
  }

  /** A failure after the first event → `error` and `response.failed` with the items finished so far. Nothing after {@link end}. */
  fail(err: StreamFailure): ResponsesStreamEvent[] {
    if (this.#phase === 'ended') return [];
    const out: ResponsesStreamEvent[] = [];
    if (this.#phase === 'waiting') this.#start(out);
    this.#phase = 'ended';
    const done = this.#output.filter((item) => item.status !== 'in_progress');
    const snapshot: ResponsesResponse = { ...this.#base, output: done, usage: toResponsesUsage(this.#usage) };
    for (const ev of streamFailureEvents(err, this.#seq, snapshot)) out.push(ev);
    this.#seq += 2;
    return out;
  }

  /** The usage the upstream reported so far (for accounting), or null. */
  get usage(): Usage | null {
    return this.#usage;
  }

  #start(out: ResponsesStreamEvent[]): void {
    this.#phase = 'streaming';
    out.push({ type: 'response.created', response: this.#base, sequence_number: this.#seq++ });
    out.push({ type: 'response.in_progress', response: this.#base, sequence_number: this.#seq++ });
  }

  #appendText(out: ResponsesStreamEvent[], kind: 'message' | 'reasoning', part: 'text' | 'refusal' | 'reasoning', text: string): void {
    let open = this.#open;
    if (open?.kind !== kind) {
      this.#closeItem(out, 'completed');
      this.#closeCalls(out, 'completed');
      open = this.#openItem(out, kind);
    }
    if (open.part?.kind !== part) open = this.#openPart(out, open, part);
    const p = open.part!;
    p.text += text;
    const at = { item_id: open.id, output_index: open.index };
    const contentIndex = kind === 'message' ? open.parts.length : 0;
    if (part === 'text')
      out.push({ type: 'response.output_text.delta', ...at, content_index: contentIndex, delta: text, logprobs: NO_LOGPROBS, sequence_number: this.#seq++ });
    else if (part === 'refusal') out.push({ type: 'response.refusal.delta', ...at, content_index: contentIndex, delta: text, sequence_number: this.#seq++ });
    else out.push({ type: 'response.reasoning_text.delta', ...at, content_index: 0, delta: text, sequence_number: this.#seq++ });
  }

  #openItem(out: ResponsesStreamEvent[], kind: 'message' | 'reasoning'): OpenItem {
    const index = this.#output.length;
    const id = itemId(kind === 'message' ? 'msg' : 'rs', this.#base.id, index);
    const item: ResponsesOutputItem =
      kind === 'message'
        ? { type: 'message', id, status: 'in_progress', role: 'assistant', content: [] }
        : { type: 'reasoning', id, summary: [], content: [], status: 'in_progress' };
    this.#output.push(item);
    out.push({ type: 'response.output_item.added', output_index: index, item: { ...item }, sequence_number: this.#seq++ } as ResponsesStreamEvent);
    this.#open = { kind, index, id, parts: [], part: null };
    return this.#open;
  }

  #openPart(out: ResponsesStreamEvent[], open: OpenItem, kind: 'text' | 'refusal' | 'reasoning'): OpenItem {
    this.#closePart(out, open);
    open.part = { kind, text: '' };
    const part =
      kind === 'text'
        ? { type: 'output_text' as const, text: '', annotations: [], logprobs: [] }
        : kind === 'refusal'
          ? { type: 'refusal' as const, refusal: '' }
          : { type: 'reasoning_text' as const, text: '' };
    out.push({
      type: 'response.content_part.added',
      item_id: open.id,
      output_index: open.index,
      content_index: open.parts.length,
      part,
      sequence_number: this.#seq++,
    });
    return open;
  }

  #closePart(out: ResponsesStreamEvent[], open: OpenItem): void {
    const p = open.part;
    if (p === null) return;
    const at = { item_id: open.id, output_index: open.index, content_index: open.parts.length };
    if (p.kind === 'text') {
      const part = { type: 'output_text' as const, text: p.text, annotations: [], logprobs: [] };
      out.push({ type: 'response.output_text.done', ...at, text: p.text, logprobs: NO_LOGPROBS, sequence_number: this.#seq++ });
      out.push({ type: 'response.content_part.done', ...at, part, sequence_number: this.#seq++ });
      open.parts.push(part);
    } else if (p.kind === 'refusal') {
      const part = { type: 'refusal' as const, refusal: p.text };
      out.push({ type: 'response.refusal.done', ...at, refusal: p.text, sequence_number: this.#seq++ });
      out.push({ type: 'response.content_part.done', ...at, part, sequence_number: this.#seq++ });
      open.parts.push(part);
    } else {
      out.push({ type: 'response.reasoning_text.done', ...at, text: p.text, sequence_number: this.#seq++ });
      out.push({ type: 'response.content_part.done', ...at, part: { type: 'reasoning_text', text: p.text }, sequence_number: this.#seq++ });
    }
    open.part = null;
  }

  #closeItem(out: ResponsesStreamEvent[], lastStatus: ItemStatus): void {
    const open = this.#open;
    if (open === null) return;
    const reasoning = open.part?.kind === 'reasoning' ? open.part.text : '';
    this.#closePart(out, open);
    const status = this.#statusOf(open.index, lastStatus);
    const item: ResponsesOutputItem =
      open.kind === 'message'
        ? { type: 'message', id: open.id, status, role: 'assistant', content: open.parts }
        : ({ type: 'reasoning', id: open.id, summary: [], content: [{ type: 'reasoning_text', text: reasoning }], status } satisfies ResponsesReasoningItem);
    this.#output[open.index] = item;
    out.push({ type: 'response.output_item.done', output_index: open.index, item, sequence_number: this.#seq++ });
    this.#open = null;
  }

  #appendToolCall(out: ResponsesStreamEvent[], delta: ToolCallDelta): void {
    const key = typeof delta.index === 'number' ? delta.index : 0;
    let call = this.#calls.get(key);
    if (call === undefined) {
      this.#closeItem(out, 'completed');
      const index = this.#output.length;
      const id = itemId('fc', this.#base.id, index);
      call = { index, id, callId: delta.id || `call_${this.#base.id.slice(5, 29)}_${key}`, name: delta.function?.name ?? '', args: '', open: true };
      this.#calls.set(key, call);
      this.#openCalls.push(call);
      const { name, namespace } = this.#opts.toolNames.restore(call.name);
      const item = {
        type: 'function_call' as const,
        id,
        status: 'in_progress' as const,
        call_id: call.callId,
        name,
        arguments: '',
        ...(namespace === undefined ? {} : { namespace }),
      };
      this.#output.push(item);
      out.push({ type: 'response.output_item.added', output_index: index, item: { ...item }, sequence_number: this.#seq++ });
    } else if (call.name === '' && nonEmpty(delta.function?.name)) {
      call.name = delta.function.name;
    }
    const fragment = delta.function?.arguments;
    // Empty fragments carry nothing; upstreams send them to open and to close a call.
    if (!nonEmpty(fragment)) return;
    call.args += fragment;
    if (call.open)
      out.push({ type: 'response.function_call_arguments.delta', item_id: call.id, output_index: call.index, delta: fragment, sequence_number: this.#seq++ });
  }

  #closeCalls(out: ResponsesStreamEvent[], lastStatus: ItemStatus): void {
    for (const call of this.#openCalls) {
      const item = functionCallItem(this.#base.id, call.index, call.callId, call.name, call.args, this.#opts.toolNames);
      const status = this.#statusOf(call.index, lastStatus);
      const final = status === 'completed' ? item : { ...item, status };
      out.push({
        type: 'response.function_call_arguments.done',
        item_id: call.id,
        output_index: call.index,
        name: final.name,
        arguments: call.args,
        sequence_number: this.#seq++,
      });
      out.push({ type: 'response.output_item.done', output_index: call.index, item: final, sequence_number: this.#seq++ });
      this.#output[call.index] = final;
      call.open = false;
    }
    this.#openCalls = [];
  }

  /** `lastStatus` applies to the last output item only (a truncated answer ends in its last item). */
  #statusOf(index: number, lastStatus: ItemStatus): ItemStatus {
    return index === this.#output.length - 1 ? lastStatus : 'completed';
  }
}

function nonEmpty(s: unknown): s is string {
  return typeof s === 'string' && s !== '';
}
