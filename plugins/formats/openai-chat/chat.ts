/**
 * POST /v1/chat/completions: the common format itself, so no translation on this side;
 * providers translate to their upstreams. Streams are pumped chunk by chunk.
 */
import type { RequestContext } from '../../../core/context.ts';
import type { GatewayError } from '../../../core/errors.ts';
import type { ChatCompletionChunk, ChatRequest } from '../../../core/format/chat.ts';
import type { StreamProgress } from '../../../core/format/estimate.ts';
import type { Chunk, Hooks } from '../../../core/hooks.ts';
import { dataField } from '../../../core/http/sse-write.ts';
import { bodyOf, type Generate } from '../../../core/pipeline/generate.ts';
import { chunkOf } from '../../../core/pipeline/upstream-calls.ts';
import type { StreamItem } from '../../../core/provider.ts';
import { OPENAI_ERRORS } from '../../../core/routes/core-routes.ts';
import { chatRequestSchema } from './schema.ts';

export const FORMAT = 'openai-chat';

/** What a chat answer needs of the request: whether the client asked for the usage chunk. */
interface ChatFacts {
  includeUsage: boolean;
}

/**
 * The generate route of POST /v1/chat/completions. The common format itself: the body goes
 * to `provider.chat` as it came (its bytes too, when gw changed nothing), and a stream's
 * chunks go out as the provider yields them, framed by {@link chatFrames}.
 */
export const chatGenerate: Generate<undefined, ChatFacts, ChatCompletionChunk> = {
  label: 'chat',
  schema: chatRequestSchema,
  read(ctx) {
    const body = bodyOf(ctx);
    return {
      facts: {
        route: 'chat',
        model: body.model as string,
        stream: body.stream === true,
        maxOutputTokens: positive(body.max_completion_tokens) ?? positive(body.max_tokens),
        choices: positive(body.n),
      },
    };
  },
  translated: {
    toChat: (body) => ({
      req: body as ChatRequest,
      unchanged: true,
      extra: { includeUsage: (body.stream_options as { include_usage?: unknown } | null | undefined)?.include_usage === true },
    }),
    json: (completion, raw) => raw ?? JSON.stringify(completion),
    stream: ({ hooks, rc, extra }) => ({
      frames: (items, progress) => chatFrames(hooks, rc, items, extra.includeUsage, progress),
      errorFrame,
    }),
  },
};

/** A failure after the first byte: one `data: {"error": …}` event (the stream then ends). */
function errorFrame(err: GatewayError): string {
  return `data: ${OPENAI_ERRORS.errorBody(err)}\n\n`;
}

function positive(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : undefined;
}

const USAGE = /"usage"\s*:\s*\{/;
/** The output fields of a raw chunk, for the early-end estimate: `content` and `reasoning_content`, tool `arguments`. */
const CONTENT = 'content":';
const ARGUMENTS = '"arguments":';

/**
 * Turns provider stream items into SSE frames for the client, enforcing docs/design.md's usage
 * rule: the client gets exactly one usage chunk (`choices: []`), after the finish chunk,
 * and only when it asked; no other chunk carries usage. Raw items are parsed only when a
 * hook needs the chunk or the text may carry usage.
 */
async function* chatFrames(
  hooks: Hooks,
  rc: RequestContext,
  items: AsyncIterable<StreamItem>,
  includeUsage: boolean,
  progress: StreamProgress,
): AsyncGenerator<string, string | undefined> {
  const onChunk = hooks.onChunk;
  const tapped = onChunk.isUsed();
  const holder = { format: FORMAT, value: undefined as unknown } as Chunk & { value: unknown };
  let usageChunk: ChatCompletionChunk | string | undefined;
  for await (const item of items) {
    let text: string | undefined;
    let chunk: ChatCompletionChunk | undefined;
    if (typeof item === 'string') {
      text = item;
      if (tapped || USAGE.test(item)) chunk = chunkOf(item, rc.provider);
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
        if (tapped) {
          holder.value = chunk;
          onChunk.call(rc, holder);
        }
        continue;
      }
      // usage on a content chunk (some compatible upstreams): moved to its own chunk
      usageChunk = { id: chunk.id, object: 'chat.completion.chunk', created: chunk.created, model: chunk.model, choices: [], usage: chunk.usage };
      chunk = { ...chunk, usage: null };
      text = undefined;
    }
    if (tapped && chunk) {
      holder.value = chunk;
      onChunk.call(rc, holder);
    }
    yield text === undefined ? `data: ${JSON.stringify(chunk)}\n\n` : `${dataField(text)}\n\n`;
  }
  if (includeUsage && usageChunk !== undefined) yield `${typeof usageChunk === 'string' ? dataField(usageChunk) : `data: ${JSON.stringify(usageChunk)}`}\n\n`;
  return 'data: [DONE]\n\n';
}
