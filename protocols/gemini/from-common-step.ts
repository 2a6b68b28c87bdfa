/**
 * A common-format chunk stream → Gemini stream responses, for `:streamGenerateContent`
 * served by a kind that does not speak Gemini. Framing (SSE or JSON array) is separate:
 * see `stream-framing.ts`.
 * @see Gemini API reference: models.streamGenerateContent; OpenAI API reference: The chat completion chunk object
 */
import type { ChatCompletionChunk, FinishReason, ToolCallDelta, Usage } from 'gw/plugin';
import type { StreamStep } from 'gw/plugin/format';
import { functionCallPart } from './from-chat-completion.ts';
import { toGeminiFinishReason } from './map-finish-reason.ts';
import { toUsageMetadata } from './map-usage.ts';
import type { Candidate, GenerateContentResponse, Part } from './types.ts';

/** A tool call whose argument fragments are still arriving. */
interface PendingCall {
  id: string;
  name: string;
  args: string;
}

interface ChoiceState {
  /** By the upstream's tool-call `index`, in arrival order. */
  calls: Map<number, PendingCall>;
  /** The final candidate, once the choice has its finish_reason (sent with the usage). */
  final: Candidate | undefined;
}

export interface ChunksToGeminiOptions {
  /** Return `reasoning_content` as `thought: true` parts (the request's `includeThoughts`). */
  includeThoughts: boolean;
}

/**
 * One instance per upstream stream, pure (no I/O). Tool-call fragments are gathered and sent
 * whole, as Gemini sends calls. A finished choice's last candidate is held so the final
 * response carries `finishReason` and `usageMetadata` together, as Gemini's last chunk does.
 */
export class CommonToGeminiStep implements StreamStep<ChatCompletionChunk, GenerateContentResponse> {
  readonly #includeThoughts: boolean;
  readonly #choices = new Map<number, ChoiceState>();
  #usage: Usage | undefined;
  #id = '';
  #model = '';
  #ended = false;

  constructor(opts: ChunksToGeminiOptions) {
    this.#includeThoughts = opts.includeThoughts;
  }

  /** One upstream chunk → zero or more Gemini responses. Chunks after {@link end} are ignored. */
  push(chunk: ChatCompletionChunk): GenerateContentResponse[] {
    if (this.#ended) return [];
    if (this.#id === '' && typeof chunk.id === 'string') this.#id = chunk.id;
    if (this.#model === '' && typeof chunk.model === 'string') this.#model = chunk.model;
    if (chunk.usage) this.#usage = chunk.usage;
    let now: Candidate[] | undefined;
    const choices = chunk.choices;
    if (Array.isArray(choices)) {
      for (const choice of choices) {
        const candidate = this.#choice(choice.index ?? 0, choice.delta, choice.finish_reason);
        if (candidate !== undefined) (now ??= []).push(candidate);
      }
    }
    const out: GenerateContentResponse[] = [];
    if (now !== undefined) out.push(this.#response(now));
    if (this.#usage !== undefined && this.#allFinished()) out.push(this.#final());
    return out;
  }

  /** Upstream ended → the final response: open choices finish with STOP, usage when known; never empty. Idempotent. */
  end(): GenerateContentResponse[] {
    if (this.#ended) return [];
    if (this.#choices.size === 0) this.#choices.set(0, { calls: new Map(), final: undefined });
    for (const [index, state] of this.#choices) {
      if (state.final === undefined) state.final = this.#finish(index, state, [], 'stop');
    }
    return [this.#final()];
  }

  /** Applies one choice's delta; returns the candidate to send now, if any. */
  #choice(index: number, delta: ChatCompletionChunk['choices'][number]['delta'] | undefined, finish: FinishReason | null | undefined): Candidate | undefined {
    let state = this.#choices.get(index);
    if (state === undefined) {
      state = { calls: new Map(), final: undefined };
      this.#choices.set(index, state);
    }
    if (state.final !== undefined) return undefined;
    let parts: Part[] | undefined;
    if (delta) {
      const reasoning = delta.reasoning_content;
      if (this.#includeThoughts && typeof reasoning === 'string' && reasoning !== '') (parts ??= []).push({ text: reasoning, thought: true });
      const text = delta.content;
      if (typeof text === 'string' && text !== '') {
        parts ??= [];
        flushCalls(state, parts);
        parts.push({ text });
      }
      const refusal = delta.refusal;
      if (typeof refusal === 'string' && refusal !== '') {
        parts ??= [];
        flushCalls(state, parts);
        parts.push({ text: refusal });
      }
      const calls = delta.tool_calls;
      if (Array.isArray(calls)) for (const call of calls) gather(state, call);
    }
    if (finish) {
      state.final = this.#finish(index, state, parts ?? [], finish);
      return undefined;
    }
    return parts === undefined ? undefined : { content: { role: 'model', parts }, index };
  }

  #finish(index: number, state: ChoiceState, parts: Part[], reason: FinishReason): Candidate {
    flushCalls(state, parts);
    if (parts.length === 0) parts.push({ text: '' });
    return { content: { role: 'model', parts }, finishReason: toGeminiFinishReason(reason), index };
  }

  #allFinished(): boolean {
    if (this.#choices.size === 0) return false;
    for (const state of this.#choices.values()) if (state.final === undefined) return false;
    return true;
  }

  #final(): GenerateContentResponse {
    this.#ended = true;
    const candidates: Candidate[] = [];
    for (const state of this.#choices.values()) candidates.push(state.final!);
    const res = this.#response(candidates);
    if (this.#usage !== undefined) res.usageMetadata = toUsageMetadata(this.#usage);
    return res;
  }

  #response(candidates: Candidate[]): GenerateContentResponse {
    const res: GenerateContentResponse = { candidates };
    if (this.#model !== '') res.modelVersion = this.#model;
    if (this.#id !== '') res.responseId = this.#id;
    return res;
  }
}

function gather(state: ChoiceState, call: ToolCallDelta): void {
  const key = typeof call.index === 'number' ? call.index : 0;
  let pending = state.calls.get(key);
  if (pending === undefined) {
    pending = { id: '', name: '', args: '' };
    state.calls.set(key, pending);
  }
  if (pending.id === '' && typeof call.id === 'string') pending.id = call.id;
  const fn = call.function;
  if (fn) {
    if (pending.name === '' && typeof fn.name === 'string') pending.name = fn.name;
    if (typeof fn.arguments === 'string') pending.args += fn.arguments;
  }
}

function flushCalls(state: ChoiceState, parts: Part[]): void {
  if (state.calls.size === 0) return;
  for (const call of state.calls.values()) parts.push(functionCallPart({ id: call.id, function: { name: call.name, arguments: call.args } }));
  state.calls.clear();
}
