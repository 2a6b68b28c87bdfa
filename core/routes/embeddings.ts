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
import { admit, logDispatched } from './admit.ts';
import { clientSignal, sendJson } from './respond.ts';

export function embeddingsRoute(ref: () => Gateway) {
  return async function embeddings(ctx: Context): Promise<void> {
    const gw = ref();
    const admitted = await admit(gw, ctx, 'embeddings', embeddingsRequestSchema);
    if (!admitted) return;
    const { rc, route } = admitted;
    const body = rc.body;
    const raw = rc.rawBody;
    const unchanged = rc.canonicalModel === rc.model;
    const req = (unchanged ? body : { ...body, model: rc.canonicalModel }) as EmbeddingsRequest;
    const signal = clientSignal(ctx);
    const call = { signal, log: rc.log, requestId: rc.id, headers: ctx.headers, rawBody: unchanged ? raw : undefined, query: ctx.querystring };
    const t0 = performance.now();
    const { value, provider, attempts, model: served } = await dispatch(gw.table, route, signal, (p, model) => {
      if (!p.embeddings) throw new GatewayError(400, `model '${rc.model}' is served by provider ${p.name} (kind ${p.kind}), which has no embeddings endpoint`, { code: 'embeddings_unsupported', param: 'model' });
      return model === rc.canonicalModel ? p.embeddings(req, call) : p.embeddings({ ...req, model }, { ...call, rawBody: undefined });
    });
    rc.upstreamMs = performance.now() - t0;
    rc.provider = provider.name;
    rc.servedModel = served;
    rc.attempts = attempts;
    logDispatched(rc);
    const prompt = value.body.usage?.prompt_tokens ?? 0;
    rc.usage = { prompt_tokens: prompt, completion_tokens: 0, total_tokens: prompt };
    const text = value.raw ?? JSON.stringify(value.body);
    rc.status = 200;
    if (gw.hooks.onResponse.isUsed()) await gw.hooks.onResponse.promise(rc, { body: text });
    sendJson(ctx, 200, text, { 'x-request-id': rc.id, 'x-gw-provider': provider.name, 'x-gw-attempts': String(attempts), ...rc.responseHeaders });
  };
}
