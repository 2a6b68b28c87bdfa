/**
 * POST /v1/chat/completions: the common format itself, so no translation on this side;
 * providers translate to their upstreams. Streams are pumped chunk by chunk.
 */
import type { Context } from 'koa';
import type { RequestContext } from '../../../core/context.ts';
import type { GatewayError } from '../../../core/errors.ts';
import type { ChatCompletionChunk, ChatRequest } from '../../../core/format/chat.ts';
import { StreamProgress } from '../../../core/format/estimate.ts';
import type { Chunk, Hooks } from '../../../core/hooks.ts';
import { dataField } from '../../../core/http/sse-write.ts';
import type { Pipeline } from '../../../core/pipeline/pipeline.ts';
import { callChat, chunkOf } from '../../../core/pipeline/upstream-calls.ts';
import type { StreamItem } from '../../../core/provider.ts';
import { OPENAI_ERRORS } from '../../../core/routes/core-routes.ts';
import { chatRequestSchema } from './schema.ts';

export const FORMAT = 'openai-chat';

/** The handler of POST /v1/chat/completions. */
export function chatRoute(pipeline: Pipeline, hooks: Hooks) {
  return async function chatCompletions(ctx: Context): Promise<void> {
    const body = (ctx.state as { body: { body: Record<string, unknown> } }).body.body;
    const a = await pipeline.admit(ctx, {
      schema: chatRequestSchema,
      facts: {
        route: 'chat',
        operation: 'generate',
        model: body.model as string,
        stream: body.stream === true,
        maxOutputTokens: positive(body.max_completion_tokens) ?? positive(body.max_tokens),
        choices: positive(body.n),
      },
    });
    if (!a) return;
    if (await pipeline.fromCache(ctx, a)) return;
    const rc = a.rc;
    const served = await pipeline.dispatch(a, (p, _model, b, call) => callChat(p, b as ChatRequest, call));
    const r = served.value;
    if (r.type === 'json') {
      rc.usage = r.body.usage ?? undefined;
      return pipeline.finish(ctx, a, { body: r.raw ?? JSON.stringify(r.body), headers: served.headers });
    }
    const includeUsage = (body.stream_options as { include_usage?: unknown } | null | undefined)?.include_usage === true;
    const progress = new StreamProgress();
    return pipeline.stream(ctx, a, {
      headers: served.headers,
      ready: r.ready,
      frames: chatFrames(hooks, rc, r.chunks, includeUsage, progress),
      errorFrame,
      progress,
    });
  };
}

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
