/**
 * POST /v1/messages/count_tokens → `{"input_tokens": n}`. Kinds with a Messages origin
 * count natively (their answer passes through unchanged); for every other kind gw
 * estimates from the request's content (gw's token estimate) and says so:
 * `"estimated": true` in the body and `x-gw-estimated: true`.
 * @see https://docs.anthropic.com/en/api/messages-count-tokens
 */
import { estimateTokens, type Pipeline } from 'gw/plugin/format';
import { countTokensRequestSchema } from 'gw/plugin/anthropic-messages';
import type { Context } from 'koa';

const FORMAT = 'anthropic-messages';

/** The handler of POST /v1/messages/count_tokens. */
export function countTokensRoute(pipeline: Pipeline) {
  return async function countTokens(ctx: Context): Promise<void> {
    const body = (ctx.state as { body: { body: Record<string, unknown> } }).body.body;
    const a = await pipeline.admit(ctx, {
      schema: countTokensRequestSchema,
      facts: { route: 'count_tokens', operation: 'count', model: body.model as string, stream: false },
    });
    if (!a) return;
    const served = await pipeline.dispatch(a, async (p, _model, b, call) => {
      const native = p.native?.[FORMAT];
      if (native) {
        const r = await native(b, call, 'count_tokens');
        if (r.type === 'json') return { status: r.status, raw: r.raw, estimated: false };
      }
      const n = estimateTokens({ system: b.system, messages: b.messages, tools: b.tools });
      return { status: 200, raw: JSON.stringify({ input_tokens: n, estimated: true }), estimated: true };
    });
    const headers = served.value.estimated ? { ...served.headers, 'x-gw-estimated': 'true' } : served.headers;
    return pipeline.finish(ctx, a, { status: served.value.status, body: served.value.raw, headers });
  };
}
