/** The embeddings loop, written once: native when the provider speaks the protocol, else through the common embeddings. */
import type { Context } from 'koa';
import type { z } from 'zod';
import type { EmbeddingsRequest, EmbeddingsResponse } from '../../lib/common/chat.ts';
import { estimateTokens } from '../../lib/common/estimate.ts';
import type { RequestProtocol } from '../context.ts';
import { EMBEDDINGS_UNSUPPORTED } from '../error-codes.ts';
import type { Pipeline } from './pipeline.ts';
import { nativeBytes } from './upstream-calls.ts';

/** An embeddings route's declaration (`route({embeddings})`). */
export interface Embeddings {
  readonly schema: z.ZodType;
  /** The model (body or URL) and the body the pipeline carries. @throws GatewayError 400 before admission (a body contradicting the URL) */
  read(ctx: Context): { model: string; body?: Record<string, unknown> };
  /** `Provider.native[protocol.id]`'s operation; absent: always through the common embeddings. */
  readonly nativeOp?: string;
  /** The common request for `model` (`asked`: the model as the client named it); `unchanged`: the client's body, whose bytes may go as sent. */
  toCommon(body: Record<string, unknown>, model: string, asked: string): { req: EmbeddingsRequest; warnings?: readonly string[]; unchanged?: boolean };
  /** The common answer in the protocol's shape; `raw`: the upstream's bytes when unchanged. */
  fromCommon(res: EmbeddingsResponse, raw: string | undefined): string;
  /** A native answer's prompt tokens; undefined: gw's estimate of `input(body)`. */
  nativeUsage?(raw: string, provider: string): number | undefined;
  /** What the estimate of prompt tokens reads when the upstream reports none. */
  input(body: Record<string, unknown>): unknown;
}

/** The handler of an embeddings route of `protocol` (labelled `label` in debug lines). */
export function embedHandler(pipeline: Pipeline, protocol: RequestProtocol, label: string, e: Embeddings): (ctx: Context) => Promise<void> {
  return async function embeddings(ctx: Context): Promise<void> {
    const read = e.read(ctx);
    const a = await pipeline.admit(ctx, {
      schema: e.schema,
      body: read.body,
      facts: { route: 'embeddings', operation: 'embed', model: read.model, stream: false },
    });
    if (!a) return;
    const rc = a.rc;
    const served = await pipeline.dispatch(a, async (p, target, body, call) => {
      const r = e.nativeOp === undefined ? undefined : await nativeBytes(p, protocol.id, e.nativeOp, body, call);
      if (r) return { status: r.status, raw: r.raw, prompt: e.nativeUsage?.(r.raw, p.name) ?? estimateTokens(e.input(body)) };
      if (!p.embeddings) throw EMBEDDINGS_UNSUPPORTED({ model: rc.model, provider: p.name, kind: p.kind });
      const common = e.toCommon(body, target, rc.model);
      if (common.warnings?.length && rc.log.isLevelEnabled('debug'))
        rc.log.debug({ req: rc.id, provider: p.name, warnings: common.warnings }, `${label} fields dropped in translation`);
      const res = await p.embeddings(common.req, common.unchanged ? call : { ...call, rawBody: undefined });
      return { status: 200, raw: e.fromCommon(res.body, res.raw), prompt: res.body.usage?.prompt_tokens ?? estimateTokens(common.req.input) };
    });
    const prompt = served.value.prompt;
    rc.usage = { prompt_tokens: prompt, completion_tokens: 0, total_tokens: prompt };
    return pipeline.finish(ctx, a, { status: served.value.status, body: served.value.raw, headers: served.headers });
  };
}
