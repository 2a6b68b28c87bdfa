/**
 * POST /v1/embeddings: OpenAI embeddings format, translated by providers that need it.
 * Counts prompt tokens for accounting.
 */
import { type EmbeddingsRequest, errors } from 'gw/plugin';
import { bodyOf, type Pipeline } from 'gw/plugin/format';
import { embeddingsRequestSchema } from 'gw/plugin/openai-chat';
import type { Context } from 'koa';

/** The handler of POST /v1/embeddings. */
export function embeddingsRoute(pipeline: Pipeline) {
  return async function embeddings(ctx: Context): Promise<void> {
    const body = bodyOf(ctx);
    const a = await pipeline.admit(ctx, {
      schema: embeddingsRequestSchema,
      facts: { route: 'embeddings', operation: 'embed', model: body.model as string, stream: false },
    });
    if (!a) return;
    const rc = a.rc;
    const served = await pipeline.dispatch(a, (p, _model, b, call) => {
      if (!p.embeddings) throw errors.EMBEDDINGS_UNSUPPORTED({ model: rc.model, provider: p.name, kind: p.kind });
      return p.embeddings(b as EmbeddingsRequest, call);
    });
    const value = served.value;
    const prompt = value.body.usage?.prompt_tokens ?? 0;
    rc.usage = { prompt_tokens: prompt, completion_tokens: 0, total_tokens: prompt };
    return pipeline.finish(ctx, a, { body: value.raw ?? JSON.stringify(value.body), headers: served.headers });
  };
}
