/**
 * POST models/{model}:countTokens → `{"totalTokens": n}`. The gemini kind counts natively
 * (its answer passes through unchanged); for every other kind gw estimates from the request's
 * content (the kit's estimateCountTokens) and says so: `"estimated": true` in the body and
 * `x-gw-estimated: true`, as on the Messages format's count_tokens.
 * @see https://ai.google.dev/api/tokens#method:-models.counttokens
 */
import { bodyOf, type Pipeline } from 'gw/plugin/format';
import type { Context } from 'koa';
import { type CountTokensBody, countTokensRequestSchema, estimateCountTokens } from 'gw/plugin/gemini';
import { gemini, urlModel, withModel } from 'gw/plugin/gemini';

/** The handler of `:countTokens`. */
export function countTokensRoute(pipeline: Pipeline) {
  return async function countTokens(ctx: Context): Promise<void> {
    const model = urlModel(ctx);
    const a = await pipeline.admit(ctx, {
      schema: countTokensRequestSchema,
      body: withModel(bodyOf(ctx), model),
      facts: { route: 'count_tokens', operation: 'count', model, stream: false },
    });
    if (!a) return;
    const served = await pipeline.dispatch(a, async (p, _model, b, call) => {
      const native = p.native?.[gemini.id];
      if (native) {
        const r = await native(b, call, 'countTokens');
        if (r.type === 'json') return { status: r.status, raw: r.raw, estimated: false };
      }
      return { status: 200, raw: JSON.stringify({ ...estimateCountTokens(b as CountTokensBody), estimated: true }), estimated: true };
    });
    const headers = served.value.estimated ? { ...served.headers, 'x-gw-estimated': 'true' } : served.headers;
    return pipeline.finish(ctx, a, { status: served.value.status, body: served.value.raw, headers });
  };
}
