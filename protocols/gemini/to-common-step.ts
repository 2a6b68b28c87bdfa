/**
 * `streamGenerateContent?alt=sse` events → common-format chunks. Every event is a whole
 * GenerateContentResponse holding the next parts; function calls arrive whole (or, with
 * Vertex's streamed arguments, as partialArgs that are collected until the call ends).
 * @see Gemini API reference: models.streamGenerateContent; Gemini API docs: Function calling
 */
import { type ChatCompletionChunk, errors, type Usage } from 'gw/plugin';
import type { StreamStep } from 'gw/plugin/format';
import { isBlank, parseEventObject } from '../../lib/common/sse-data.ts';
import type { SseEvent } from '../../lib/provider.ts';
import { fromGeminiFinishReason } from './map-finish-reason.ts';
import { geminiStreamError } from './google-error.ts';
import { fromUsageMetadata, hasTokenCounts } from './map-usage.ts';
import { applyPartialArgs } from './partial-args.ts';
import { mintToolCallId, type IdSource } from './tool-call-ids.ts';
import type { Candidate, FunctionCall, GenerateContentResponse, GoogleErrorBody, Part } from './types.ts';

type Delta = ChatCompletionChunk['choices'][number]['delta'];

/** A function call whose arguments are still streaming. */
interface PendingCall {
  name: string;
  signature: string | undefined;
  args: Record<string, unknown>;
}

interface ChoiceState {
  /** Tool calls emitted so far: the next call's `index`. */
  toolCalls: number;
  pending: PendingCall | undefined;
  finished: boolean;
}

export interface StreamMeta {
  id: string;
  model: string;
  created: number;
  idSource?: IdSource;
  /** Provider name, for errors (default `gemini`). */
  provider?: string;
}

/**
 * One instance per upstream stream. Gemini's counts are cumulative: an event whose counts
 * changed also ends with a usage chunk, so a stream cut early is charged what was counted.
 */
export class GeminiToCommonStep implements StreamStep<SseEvent, ChatCompletionChunk> {
  readonly #meta: StreamMeta;
  readonly #choices = new Map<number, ChoiceState>();
  #usage: Usage | undefined;
  /** The usage last sent as a running usage chunk. */
  #sent: Usage | undefined;

  constructor(meta: StreamMeta) {
    this.#meta = meta;
  }

  /** One SSE event → chunks. @throws GatewayError 502 for malformed JSON or an `{"error": …}` payload. */
  push(event: SseEvent): ChatCompletionChunk[] {
    const res = parseEvent(event.data, this.#meta.provider ?? 'gemini');
    if (res === undefined) return [];
    if (hasTokenCounts(res.usageMetadata)) this.#usage = fromUsageMetadata(res.usageMetadata);
    const out: ChatCompletionChunk[] = [];
    const candidates = res.candidates ?? [];
    if (candidates.length === 0 && res.promptFeedback?.blockReason !== undefined) {
      const state = this.#choice(0, out);
      if (!state.finished) {
        state.finished = true;
        out.push(this.#chunk(0, {}, 'content_filter'));
      }
      return out;
    }
    for (let position = 0; position < candidates.length; position++) {
      const candidate = candidates[position]!;
      this.#candidate(candidate, candidate.index ?? position, out);
    }
    const u = this.#usage;
    if (
      u !== undefined &&
      u !== this.#sent &&
      (this.#sent === undefined || u.prompt_tokens !== this.#sent.prompt_tokens || u.completion_tokens !== this.#sent.completion_tokens)
    ) {
      this.#sent = u;
      out.push(this.#usageChunk(u));
    }
    return out;
  }

  /** Upstream closed → the usage chunk, if any. @throws GatewayError 502 when a choice never finished (cut). */
  end(): ChatCompletionChunk[] {
    if (this.#choices.size === 0 || [...this.#choices.values()].some((s) => !s.finished)) {
      const provider = this.#meta.provider ?? 'gemini';
      throw errors.UPSTREAM_TRUNCATED({ provider, expected: 'finishReason' }, { provider });
    }
    if (this.#usage === undefined) return [];
    return [this.#usageChunk(this.#usage)];
  }

  #usageChunk(usage: Usage): ChatCompletionChunk {
    return { id: this.#meta.id, object: 'chat.completion.chunk', created: this.#meta.created, model: this.#meta.model, choices: [], usage };
  }

  #candidate(candidate: Candidate, index: number, out: ChatCompletionChunk[]): void {
    const state = this.#choice(index, out);
    for (const part of candidate.content?.parts ?? []) {
      if (part.functionCall !== undefined) this.#functionCall(part, part.functionCall, state, index, out);
      else if (typeof part.text === 'string' && part.text !== '') {
        out.push(this.#chunk(index, part.thought === true ? { reasoning_content: part.text } : { content: part.text }));
      }
    }
    if (candidate.finishReason !== undefined && !state.finished) {
      this.#flushPending(state, index, out);
      state.finished = true;
      out.push(this.#chunk(index, {}, fromGeminiFinishReason(candidate.finishReason, state.toolCalls > 0)));
    }
  }

  /** A whole call goes out at once; a streamed one (`willContinue`, `partialArgs`) when its end, the next call or the finishReason arrives. */
  #functionCall(part: Part, fc: FunctionCall, state: ChoiceState, index: number, out: ChatCompletionChunk[]): void {
    const streamed = fc.willContinue === true || fc.partialArgs !== undefined || fc.name === undefined;
    if (!streamed) {
      this.#flushPending(state, index, out);
      this.#emitCall(fc.name ?? '', fc.args ?? {}, part.thoughtSignature, state, index, out);
      return;
    }
    if (fc.name !== undefined) {
      this.#flushPending(state, index, out);
      state.pending = { name: fc.name, signature: part.thoughtSignature, args: { ...fc.args } };
    } else if (state.pending !== undefined && state.pending.signature === undefined) {
      state.pending.signature = part.thoughtSignature;
    }
    if (fc.partialArgs !== undefined && state.pending !== undefined) applyPartialArgs(state.pending.args, fc.partialArgs);
    if (fc.willContinue !== true) this.#flushPending(state, index, out);
  }

  #flushPending(state: ChoiceState, index: number, out: ChatCompletionChunk[]): void {
    const p = state.pending;
    if (p === undefined) return;
    state.pending = undefined;
    this.#emitCall(p.name, p.args, p.signature, state, index, out);
  }

  #emitCall(name: string, args: Record<string, unknown>, signature: string | undefined, state: ChoiceState, index: number, out: ChatCompletionChunk[]): void {
    out.push(
      this.#chunk(index, {
        tool_calls: [
          {
            index: state.toolCalls++,
            id: mintToolCallId(signature, this.#meta.idSource),
            type: 'function',
            function: { name, arguments: JSON.stringify(args) },
          },
        ],
      }),
    );
  }

  #choice(index: number, out: ChatCompletionChunk[]): ChoiceState {
    let state = this.#choices.get(index);
    if (state === undefined) {
      state = { toolCalls: 0, pending: undefined, finished: false };
      this.#choices.set(index, state);
      out.push(this.#chunk(index, { role: 'assistant', content: '' }));
    }
    return state;
  }

  #chunk(index: number, delta: Delta, finishReason: ChatCompletionChunk['choices'][number]['finish_reason'] = null): ChatCompletionChunk {
    return {
      id: this.#meta.id,
      object: 'chat.completion.chunk',
      created: this.#meta.created,
      model: this.#meta.model,
      choices: [{ index, delta, finish_reason: finishReason }],
    };
  }
}

/** An event's response; blank data is none; data that is not an object is malformed (lib/common/sse-data.ts). */
function parseEvent(data: string, provider: string): GenerateContentResponse | undefined {
  if (isBlank(data)) return undefined;
  const payload = parseEventObject(data, provider);
  if ('error' in payload) throw geminiStreamError((payload as unknown as GoogleErrorBody).error, provider);
  return payload as GenerateContentResponse;
}
