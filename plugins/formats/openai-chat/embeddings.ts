/**
 * POST /v1/embeddings: OpenAI embeddings format, translated by providers that need it.
 * Counts prompt tokens for accounting.
 */
import type { Context } from 'koa';
import { EMBEDDINGS_UNSUPPORTED } from '../../../core/error-codes.ts';
import type { EmbeddingsRequest } from '../../../core/format/chat.ts';
import type { Pipeline } from '../../../core/pipeline/pipeline.ts';
import { embeddingsRequestSchema } from './schema.ts';

/** The handler of POST /v1/embeddings. */
export function embeddingsRoute(pipeline: Pipeline) {
  return async function embeddings(ctx: Context): Promise<void> {
    const body = (ctx.state as { body: { body: Record<string, unknown> } }).body.body;
    const a = await pipeline.admit(ctx, {
      schema: embeddingsRequestSchema,
      facts: { route: 'embeddings', operation: 'embed', model: body.model as string, stream: false },
    });
    if (!a) return;
    const rc = a.rc;
    const served = await pipeline.dispatch(a, (p, _model, b, call) => {
      if (!p.embeddings) throw EMBEDDINGS_UNSUPPORTED({ model: rc.model, provider: p.name, kind: p.kind });
      return p.embeddings(b as EmbeddingsRequest, call);
    });
    const value = served.value;
    const prompt = value.body.usage?.prompt_tokens ?? 0;
    rc.usage = { prompt_tokens: prompt, completion_tokens: 0, total_tokens: prompt };
    return pipeline.finish(ctx, a, { body: value.raw ?? JSON.stringify(value.body), headers: served.headers });
  };
}
