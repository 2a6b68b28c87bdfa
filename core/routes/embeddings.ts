/**
 * POST /v1/embeddings: OpenAI embeddings format, translated by providers that need it.
 * Counts prompt tokens for accounting.
 */
import type { Context } from 'koa';
import { dispatch } from '../dispatch.ts';
import { GatewayError } from '../errors.ts';
import type { EmbeddingsRequest } from '../format/chat.ts';
import type { Gateway } from '../gateway.ts';
import { embeddingsRequestSchema } from '../schemas.ts';
import { admit, answered, forModel, upstreamCall } from './admit.ts';
import { sendJson } from './respond.ts';

export function embeddingsRoute(ref: () => Gateway) {
  return async function embeddings(ctx: Context): Promise<void> {
    const gw = ref();
    const admitted = await admit(gw, ctx, 'embeddings', embeddingsRequestSchema);
    if (!admitted) return;
    const { rc, route } = admitted;
    const up = upstreamCall(ctx, rc);
    const t0 = performance.now();
    const dispatched = await dispatch(gw.table, route, up.call.signal, (p, model) => {
      if (!p.embeddings) throw new GatewayError(400, `model '${rc.model}' is served by provider ${p.name} (kind ${p.kind}), which has no embeddings endpoint`, { code: 'embeddings_unsupported', param: 'model' });
      return p.embeddings(...forModel(rc, up.body as EmbeddingsRequest, up.call, model));
    });
    rc.upstreamMs = performance.now() - t0;
    const headers = answered(rc, dispatched);
    const value = dispatched.value;
    const prompt = value.body.usage?.prompt_tokens ?? 0;
    rc.usage = { prompt_tokens: prompt, completion_tokens: 0, total_tokens: prompt };
    const text = value.raw ?? JSON.stringify(value.body);
    rc.status = 200;
    if (gw.hooks.onResponse.isUsed()) await gw.hooks.onResponse.promise(rc, { body: text });
    sendJson(ctx, 200, text, headers);
  };
}
