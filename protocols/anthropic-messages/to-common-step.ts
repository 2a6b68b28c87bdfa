/** Messages stream events → OpenAI chat completion chunks. Follows Anthropic's "Streaming Messages". */
import { type ChatCompletionChunk, errors, type FinishReason, type GatewayError, type Usage, isObject } from 'gw/plugin';
import type { StreamStep } from 'gw/plugin/format';
import { parseEventObject } from '../../lib/common/sse-data.ts';
import type { SseEvent } from '../../lib/provider.ts';
import { messagesStreamError } from './errors.ts';
import { refusalText } from './from-messages-response.ts';
import { fromMessagesStopReason } from './map-stop-reason.ts';
import { fromMessagesUsage, mergeMessagesUsage } from './map-usage.ts';
import type { MessagesUsage } from './types.ts';

type Delta = ChatCompletionChunk['choices'][number]['delta'];
type Phase = 'before_start' | 'streaming' | 'stopped';

/**
 * One instance per upstream stream. A usage chunk (`choices: []`) follows message_start and
 * message_delta too, so a stream that ends early is charged what the upstream already counted.
 * Tool-call `index` counts tool_use blocks only (Anthropic's block index counts every block).
 */
export class MessagesToCommonStep implements StreamStep<SseEvent, ChatCompletionChunk> {
  #phase: Phase = 'before_start';
  #id = '';
  #model = '';
  #created: number;
  #usage: Partial<MessagesUsage> = {};
  /** Anthropic block index → tool-call ordinal, for tool_use blocks only. */
  #toolIndex = new Map<number, number>();
  /** tool_use blocks (by Anthropic index) whose arguments are still empty. */
  #toolWithoutArgs = new Set<number>();
  #finished = false;
  /** Usage taken since the last usage chunk, or none sent yet: message_stop must send it. */
  #unsent = true;
  readonly #provider: string;

  /** `opts.provider` names the provider in errors; `opts.created` fixes the chunks' timestamp (tests). */
  constructor(opts: { created?: number; provider?: string } = {}) {
    this.#created = opts.created ?? Math.floor(Date.now() / 1000);
    this.#provider = opts.provider ?? 'anthropic';
  }

  /** One SSE event → zero or more chunks. Throws GatewayError 502 on an `error` event or malformed data. */
  push(event: SseEvent): ChatCompletionChunk[] {
    if (event.data.trim() === '') return [];
    const data = this.#parse(event.data);
    const type = typeof data.type === 'string' ? data.type : event.event;

    if (type === 'error') throw messagesStreamError(data.error, this.#provider);
    if (type === 'ping' || this.#phase === 'stopped') return [];
    if (this.#phase === 'before_start' && type !== 'message_start') throw this.#malformed(`${type ?? 'unnamed event'} before message_start`);

    switch (type) {
      case 'message_start':
        return this.#start(data.message);
      case 'content_block_start':
        return this.#blockStart(data.index, data.content_block);
      case 'content_block_delta':
        return this.#blockDelta(data.index, data.delta);
      case 'message_delta':
        return this.#messageDelta(data);
      case 'content_block_stop':
        return this.#blockStop(data.index);
      case 'message_stop':
        return this.#stop();
      default:
        // Event types newer than this mapper are skipped.
        return [];
    }
  }

  /** Upstream closed. Throws GatewayError 502 if it closed before message_stop. */
  end(): ChatCompletionChunk[] {
    if (this.#phase !== 'stopped') throw errors.UPSTREAM_TRUNCATED({ provider: this.#provider, expected: 'message_stop' }, { provider: this.#provider });
    return [];
  }

  #start(message: unknown): ChatCompletionChunk[] {
    if (!isObject(message) || typeof message.id !== 'string') throw this.#malformed('message_start without message.id');
    if (this.#phase !== 'before_start') throw this.#malformed('second message_start');
    this.#phase = 'streaming';
    this.#id = message.id;
    this.#model = typeof message.model === 'string' ? message.model : '';
    const role = this.#chunk({ role: 'assistant', content: '' });
    if (!isObject(message.usage)) return [role];
    this.#takeUsage(message.usage);
    return [role, this.#usageChunk()];
  }

  #blockStart(index: unknown, block: unknown): ChatCompletionChunk[] {
    if (typeof index !== 'number' || !isObject(block)) throw this.#malformed('content_block_start without index or content_block');
    switch (block.type) {
      case 'tool_use': {
        const ordinal = this.#toolIndex.size;
        this.#toolIndex.set(index, ordinal);
        this.#toolWithoutArgs.add(index);
        return [
          this.#chunk({ tool_calls: [{ index: ordinal, id: String(block.id), type: 'function', function: { name: String(block.name), arguments: '' } }] }),
        ];
      }
      // Blocks normally start empty; a non-empty start is still content.
      case 'text':
        return typeof block.text === 'string' && block.text !== '' ? [this.#chunk({ content: block.text })] : [];
      case 'thinking':
        return typeof block.thinking === 'string' && block.thinking !== '' ? [this.#chunk({ reasoning_content: block.thinking })] : [];
      default:
        // redacted_thinking, server_tool_use, web_search_tool_result…: no chat-format form.
        return [];
    }
  }

  #blockDelta(index: unknown, delta: unknown): ChatCompletionChunk[] {
    if (!isObject(delta)) throw this.#malformed('content_block_delta without delta');
    switch (delta.type) {
      case 'text_delta':
        return typeof delta.text === 'string' && delta.text !== '' ? [this.#chunk({ content: delta.text })] : [];
      case 'thinking_delta':
        return typeof delta.thinking === 'string' && delta.thinking !== '' ? [this.#chunk({ reasoning_content: delta.thinking })] : [];
      case 'input_json_delta': {
        // Server tools (server_tool_use) stream input too; only client tool_use blocks are tool calls.
        const ordinal = typeof index === 'number' ? this.#toolIndex.get(index) : undefined;
        if (ordinal === undefined || typeof delta.partial_json !== 'string' || delta.partial_json === '') return [];
        this.#toolWithoutArgs.delete(index as number);
        return [this.#chunk({ tool_calls: [{ index: ordinal, function: { arguments: delta.partial_json } }] })];
      }
      default:
        // signature_delta must stay server-side; citations_delta has no chat-format field.
        return [];
    }
  }

  /** A call without arguments streams only `""`, which clients cannot JSON.parse: close it with `{}`. */
  #blockStop(index: unknown): ChatCompletionChunk[] {
    if (typeof index !== 'number' || !this.#toolWithoutArgs.delete(index)) return [];
    return [this.#chunk({ tool_calls: [{ index: this.#toolIndex.get(index) as number, function: { arguments: '{}' } }] })];
  }

  #messageDelta(data: Record<string, unknown>): ChatCompletionChunk[] {
    const usage = isObject(data.usage);
    if (usage) this.#takeUsage(data.usage as Record<string, unknown>);
    const delta = isObject(data.delta) ? data.delta : {};
    const reason = fromMessagesStopReason(delta.stop_reason as string | null | undefined);
    const chunks: ChatCompletionChunk[] = [];
    if (reason !== null && !this.#finished) {
      const refusal = refusalText(delta);
      if (refusal !== null) chunks.push(this.#chunk({ refusal }));
      chunks.push(this.#finish(reason));
    }
    if (usage) chunks.push(this.#usageChunk());
    return chunks;
  }

  /** The finish chunk if none went out yet, and the final usage unless the last usage chunk already said it after the finish. */
  #stop(): ChatCompletionChunk[] {
    this.#phase = 'stopped';
    if (this.#finished && !this.#unsent) return [];
    const chunks = this.#finished ? [] : [this.#finish('stop')];
    chunks.push(this.#usageChunk());
    return chunks;
  }

  /** message_start has input and cache counts; message_delta the cumulative output, and since 2025 may repeat the rest. */
  #takeUsage(usage: Record<string, unknown>): void {
    mergeMessagesUsage(this.#usage, usage);
    this.#unsent = true;
  }

  #finish(reason: FinishReason): ChatCompletionChunk {
    this.#finished = true;
    const chunk = this.#chunk({});
    chunk.choices[0].finish_reason = reason;
    return chunk;
  }

  #chunk(delta: Delta): ChatCompletionChunk {
    return { id: this.#id, object: 'chat.completion.chunk', created: this.#created, model: this.#model, choices: [{ index: 0, delta, finish_reason: null }] };
  }

  /** The event's data as an object; anything else is malformed (lib/common/sse-data.ts, one rule for every stream). */
  #parse(data: string): Record<string, unknown> {
    // real upstream data lines may be right-padded with spaces; JSON.parse accepts that
    return parseEventObject(data, this.#provider);
  }

  #malformed(detail: string): GatewayError {
    return errors.UPSTREAM_MALFORMED({ provider: this.#provider, what: `a malformed stream: ${detail}` }, { provider: this.#provider });
  }

  /** The usage so far as a usage chunk (`choices: []`). */
  #usageChunk(): ChatCompletionChunk {
    this.#unsent = false;
    const usage: Usage = fromMessagesUsage(this.#usage);
    return { id: this.#id, object: 'chat.completion.chunk', created: this.#created, model: this.#model, choices: [], usage };
  }
}
