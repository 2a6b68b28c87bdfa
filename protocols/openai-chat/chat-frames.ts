/**
 * A chat completions stream as the client gets it: SSE `data:` events ending with `data: [DONE]`,
 * a failure after the first byte as one `data: {"error": …}` event. Raw chunk text goes out as
 * it came unless the usage rule or a hook needs it parsed.
 * @see OpenAI API reference: The chat completion chunk object
 */
import type { ChatCompletionChunk, GatewayError, Hooks, RequestContext } from 'gw/plugin';
import type { StreamItem } from '../../lib/provider.ts';
import { OPENAI_ERRORS } from '../../lib/http/routes.ts';
import { ChunkHolder } from '../../core/pipeline/chunk-holder.ts';
import { chunkOf } from '../../core/pipeline/upstream-calls.ts';
import { dataField } from '../../lib/http/sse-write.ts';
import type { StreamProgress } from '../../lib/common/estimate.ts';
import { streamSteps } from '../../core/hooks.ts';
import { HeldEvent } from '../../lib/content/steps.ts';
import { chatContent } from './content.ts';

/** onStream's steps of a stream, chained. */
type EventSteps = NonNullable<ReturnType<typeof streamSteps>>;

/** The chat completions protocol's id: its client format's, and its chunks' `format` in onChunk. */
export const OPENAI_CHAT = 'openai-chat';

/** A failure after the first byte: one `data: {"error": …}` event (the stream then ends). */
export function chatErrorFrame(err: GatewayError): string {
  return `data: ${OPENAI_ERRORS.errorBody(err)}\n\n`;
}

const USAGE = /"usage"\s*:\s*\{/;
/** The output fields of a raw chunk, for the early-end estimate: `content` and `reasoning_content`, tool `arguments`. */
const CONTENT = 'content":';
const ARGUMENTS = '"arguments":';

/**
 * Turns provider stream items into SSE frames for the client, enforcing docs/design.md's usage
 * rule: the client gets exactly one usage chunk (`choices: []`), after the finish chunk,
 * and only when it asked; no other chunk carries usage. Raw items are parsed only when the
 * text may carry usage, or when an onChunk tap reads the chunk's value.
 */
export async function* chatFrames(
  hooks: Hooks,
  rc: RequestContext,
  items: AsyncIterable<StreamItem>,
  includeUsage: boolean,
  progress: StreamProgress,
): AsyncGenerator<string, string | undefined> {
  const onChunk = hooks.onChunk;
  // a tap parses a raw chunk only if it reads `value` (ChunkHolder)
  const holder = onChunk.isUsed() ? new ChunkHolder(OPENAI_CHAT, chatContent) : undefined;
  const steps = streamSteps(hooks, rc);
  let usageChunk: ChatCompletionChunk | string | undefined;
  for await (const item of items) {
    let text: string | undefined;
    let chunk: ChatCompletionChunk | undefined;
    if (typeof item === 'string') {
      text = item;
      if (USAGE.test(item)) chunk = chunkOf(item, rc.provider);
      else {
        progress.field(item, CONTENT);
        progress.field(item, ARGUMENTS);
      }
    } else chunk = item;
    if (chunk) progress.chunk(chunk);
    if (chunk?.usage) {
      rc.usage = chunk.usage;
      if (!Array.isArray(chunk.choices) || chunk.choices.length === 0) {
        usageChunk = text ?? chunk;
        if (holder) onChunk.call(rc, holder.next(text, chunk));
        continue;
      }
      // usage on a content chunk (some compatible upstreams): moved to its own chunk
      usageChunk = { id: chunk.id, object: 'chat.completion.chunk', created: chunk.created, model: chunk.model, choices: [], usage: chunk.usage };
      chunk = { ...chunk, usage: null };
      text = undefined;
    }
    if (steps !== undefined) {
      // onStream's steps hold and rewrite chunks: they leave as released, a cut ends the stream
      for (const held of steps.push(new HeldEvent(chatContent, text, chunk, undefined))) yield released(held as HeldEvent, hooks, rc, holder);
      if (steps.cut !== undefined) return yield* filtered(steps, rc, hooks, holder, includeUsage ? usageChunk : undefined);
      continue;
    }
    if (holder) onChunk.call(rc, holder.next(text, chunk));
    yield text === undefined ? `data: ${JSON.stringify(chunk)}\n\n` : `${dataField(text)}\n\n`;
  }
  if (steps !== undefined) {
    for (const held of steps.end()) yield released(held as HeldEvent, hooks, rc, holder);
    if (steps.cut !== undefined) return yield* filtered(steps, rc, hooks, holder, includeUsage ? usageChunk : undefined);
  }
  if (includeUsage && usageChunk !== undefined) yield usageFrame(usageChunk);
  return 'data: [DONE]\n\n';
}

function usageFrame(usageChunk: ChatCompletionChunk | string): string {
  return `${typeof usageChunk === 'string' ? dataField(usageChunk) : `data: ${JSON.stringify(usageChunk)}`}\n\n`;
}

/** A chunk the steps released: shown to onChunk and framed, from its object when a step edited it. */
function released(held: HeldEvent, hooks: Hooks, rc: RequestContext, holder: ChunkHolder | undefined): string {
  held.commit();
  const text = held.data;
  if (holder) hooks.onChunk.call(rc, holder.next(text, held.value));
  return text === undefined ? `data: ${JSON.stringify(held.value)}\n\n` : `${dataField(text)}\n\n`;
}

/**
 * A stream a step cut: a chunk finishing every choice with `content_filter` (what OpenAI sends
 * when its own filter stops an answer), the usage chunk when asked, then `[DONE]`.
 */
async function* filtered(
  steps: EventSteps,
  rc: RequestContext,
  hooks: Hooks,
  holder: ChunkHolder | undefined,
  usageChunk: ChatCompletionChunk | string | undefined,
): AsyncGenerator<string, string> {
  const last = steps.last as HeldEvent | undefined;
  const seen = (last?.value ?? {}) as Partial<ChatCompletionChunk>;
  const choices: ChatCompletionChunk['choices'] = [];
  for (let index = 0; index < rc.choices; index++) choices.push({ index, delta: {}, finish_reason: 'content_filter' });
  const chunk: ChatCompletionChunk = {
    id: seen.id ?? `chatcmpl-${rc.id}`,
    object: 'chat.completion.chunk',
    created: seen.created ?? Math.floor(Date.now() / 1000),
    model: seen.model ?? rc.model,
    choices,
  };
  if (holder) hooks.onChunk.call(rc, holder.next(undefined, chunk));
  yield `data: ${JSON.stringify(chunk)}\n\n`;
  if (usageChunk !== undefined) yield usageFrame(usageChunk);
  return 'data: [DONE]\n\n';
}
