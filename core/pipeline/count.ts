/** The count-tokens loop, written once: the provider counts when it speaks the protocol natively, else gw estimates and says so. */
import type { Context } from 'koa';
import type { z } from 'zod';
import type { RequestProtocol } from '../context.ts';
import type { Pipeline } from './pipeline.ts';
import { nativeBytes } from './upstream-calls.ts';

/** A count-tokens route's declaration (`route({countTokens})`). */
export interface CountTokens {
  readonly schema: z.ZodType;
  /** The model (body or URL) and the body the pipeline carries (default the parsed one). */
  read(ctx: Context): { model: string; body?: Record<string, unknown> };
  /** `Provider.native[protocol.id]`'s operation: `count_tokens`, `countTokens`. */
  readonly nativeOp: string;
  /** gw's estimate as the protocol's answer; the kernel adds `estimated: true` and `x-gw-estimated: true`. */
  estimate(body: Record<string, unknown>): Record<string, unknown>;
}

/** The handler of a count-tokens route of `protocol`. */
export function countHandler(pipeline: Pipeline, protocol: RequestProtocol, c: CountTokens): (ctx: Context) => Promise<void> {
  return async function countTokens(ctx: Context): Promise<void> {
    const read = c.read(ctx);
    const a = await pipeline.admit(ctx, {
      schema: c.schema,
      body: read.body,
      facts: { route: 'count_tokens', operation: 'count', model: read.model, stream: false },
    });
    if (!a) return;
    const served = await pipeline.dispatch(a, async (p, _model, body, call) => {
      const r = await nativeBytes(p, protocol.id, c.nativeOp, body, call);
      if (r) return { status: r.status, raw: r.raw, estimated: false };
      return { status: 200, raw: JSON.stringify({ ...c.estimate(body), estimated: true }), estimated: true };
    });
    const answer = served.value;
    const headers = answer.estimated ? { ...served.headers, 'x-gw-estimated': 'true' } : served.headers;
    return pipeline.finish(ctx, a, { status: answer.status, body: answer.raw, headers });
  };
}
