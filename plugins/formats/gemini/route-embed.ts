/**
 * POST models/{model}:embedContent and :batchEmbedContents. The gemini kind passes through
 * natively; every other kind is reached through the common embeddings (`provider.embeddings`;
 * a kind without it answers 400 `embeddings_unsupported`), its answer turned back into
 * Gemini's `{embedding}` / `{embeddings}`. Usage: the upstream's prompt tokens
 * (`usageMetadata.promptTokenCount` natively, when reported), else an estimate.
 * @see https://ai.google.dev/api/embeddings
 */
import { badRequest, errors } from 'gw/plugin';
import { bodyOf, estimateTokens, type Pipeline } from 'gw/plugin/format';
import type { Context } from 'koa';
import {
  type BatchEmbedContentsBody,
  batchEmbedContentsRequestSchema,
  batchEmbedContentsToEmbeddings,
  type EmbedContentBody,
  embedContentRequestSchema,
  embedContentToEmbeddings,
  embeddingsToBatchEmbedContents,
  embeddingsToEmbedContent,
} from 'gw/plugin/gemini';
import { gemini, urlModel, withModel } from 'gw/plugin/gemini';
import { logDropped } from './request.ts';

/** The handler of `:embedContent` (`batch` false) or `:batchEmbedContents` (true). */
export function embedRoute(pipeline: Pipeline, batch: boolean) {
  const op = batch ? 'batchEmbedContents' : 'embedContent';
  return async function embedContent(ctx: Context): Promise<void> {
    const model = urlModel(ctx);
    const body = bodyOf(ctx);
    // the body's own `model` (embedContent) gives way to the URL's in the pipeline: check it first
    if (!batch && body.model !== undefined && body.model !== model && body.model !== `models/${model}`) {
      throw badRequest(`model must be "models/${model}", the model of the URL`, 'model');
    }
    const a = await pipeline.admit(ctx, {
      schema: batch ? batchEmbedContentsRequestSchema : embedContentRequestSchema,
      body: withModel(body, model),
      facts: { route: 'embeddings', operation: 'embed', model, stream: false },
    });
    if (!a) return;
    const rc = a.rc;
    const served = await pipeline.dispatch(a, async (p, target, b, call) => {
      const native = p.native?.[gemini.id];
      if (native) {
        const r = await native(b, call, op);
        if (r.type === 'json') return { status: r.status, raw: r.raw, prompt: nativePromptTokens(r.raw, body, p.name) };
      }
      if (!p.embeddings) throw errors.EMBEDDINGS_UNSUPPORTED({ model: rc.model, provider: p.name, kind: p.kind });
      // nested `requests[].model` name the URL's model as the client wrote it
      const { req, warnings } = batch
        ? batchEmbedContentsToEmbeddings(body as BatchEmbedContentsBody, model)
        : embedContentToEmbeddings({ ...body, model: undefined } as EmbedContentBody, model);
      logDropped(rc, p.name, warnings);
      req.model = target;
      const res = (await p.embeddings(req, { ...call, rawBody: undefined })).body;
      const out = batch ? embeddingsToBatchEmbedContents(res) : embeddingsToEmbedContent(res);
      return { status: 200, raw: JSON.stringify(out), prompt: res.usage?.prompt_tokens ?? estimateTokens(req.input) };
    });
    const prompt = served.value.prompt;
    rc.usage = { prompt_tokens: prompt, completion_tokens: 0, total_tokens: prompt };
    return pipeline.finish(ctx, a, { status: served.value.status, body: served.value.raw, headers: served.headers });
  };
}

/** A native answer's `usageMetadata.promptTokenCount` (newer embedding models report it), else an estimate of the request. */
function nativePromptTokens(raw: string, body: Record<string, unknown>, provider: string): number {
  let parsed: { usageMetadata?: { promptTokenCount?: unknown } } | null;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw errors.UPSTREAM_MALFORMED({ provider, what: `a malformed JSON body: ${raw.slice(0, 200)}` }, { provider });
  }
  const n = parsed?.usageMetadata?.promptTokenCount;
  return typeof n === 'number' && n >= 0 ? n : estimateTokens(texts(body));
}

/** The text parts of an embedContent / batchEmbedContents body. */
function texts(body: Record<string, unknown>): string[] {
  const out: string[] = [];
  const contents = Array.isArray(body.requests) ? body.requests.map((r) => (r as { content?: unknown } | null)?.content) : [body.content];
  for (const c of contents) {
    const parts = (c as { parts?: unknown } | null | undefined)?.parts;
    if (Array.isArray(parts)) for (const p of parts) if (typeof (p as { text?: unknown } | null)?.text === 'string') out.push((p as { text: string }).text);
  }
  return out;
}
