/**
 * models/{model}:embedContent and :batchEmbedContents as embeddings declarations (the kernel's
 * loop runs them): native on the gemini kind, through the common embeddings on every other
 * kind, the answer turned back into Gemini's `{embedding}` / `{embeddings}`. Usage: a native
 * answer's `usageMetadata.promptTokenCount` when reported, else gw's estimate.
 * @see Gemini API reference: Embeddings
 */
import { badRequest } from 'gw/plugin';
import { bodyOf } from 'gw/plugin/format';
import type { Embeddings } from '../../core/pipeline/embed.ts';
import { parseUpstreamJson } from '../../lib/http/upstream.ts';
import { batchEmbedContentsToEmbeddings, embedContentToEmbeddings, embeddingsToBatchEmbedContents, embeddingsToEmbedContent } from './embed-content.ts';
import { urlModel, withModel } from './request.ts';
import { batchEmbedContentsRequestSchema, embedContentRequestSchema } from './schemas.ts';
import type { BatchEmbedContentsBody, EmbedContentBody } from './types.ts';

/** The declaration of `:embedContent` (`batch` false) or `:batchEmbedContents` (true). */
export function geminiEmbeddings(batch: boolean): Embeddings {
  return {
    schema: batch ? batchEmbedContentsRequestSchema : embedContentRequestSchema,
    read(ctx) {
      const model = urlModel(ctx);
      const body = bodyOf(ctx);
      // the body's own `model` (embedContent) gives way to the URL's in the pipeline: check it first
      if (!batch && body.model !== undefined && body.model !== model && body.model !== `models/${model}`)
        throw badRequest(`model must be "models/${model}", the model of the URL`, 'model');
      return { model, body: withModel(body, model) };
    },
    nativeOp: batch ? 'batchEmbedContents' : 'embedContent',
    toCommon(body, model, asked) {
      // nested `requests[].model` name the URL's model as the client wrote it
      const common = batch
        ? batchEmbedContentsToEmbeddings(body as BatchEmbedContentsBody, asked)
        : embedContentToEmbeddings({ ...body, model: undefined } as EmbedContentBody, asked);
      common.req.model = model;
      return common;
    },
    fromCommon: (res) => JSON.stringify(batch ? embeddingsToBatchEmbedContents(res) : embeddingsToEmbedContent(res)),
    nativeUsage(raw, provider) {
      const n = parseUpstreamJson<{ usageMetadata?: { promptTokenCount?: unknown } } | null>(raw, provider)?.usageMetadata?.promptTokenCount;
      return typeof n === 'number' && n >= 0 ? n : undefined;
    },
    input: texts,
  };
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
