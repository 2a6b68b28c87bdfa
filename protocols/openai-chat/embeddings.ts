/**
 * POST /v1/embeddings as an embeddings declaration: the common format's own request, sent as the
 * client's bytes when nothing changed; providers translate it where their upstream needs it.
 * @see OpenAI API reference: Embeddings
 */
import type { EmbeddingsRequest } from 'gw/plugin';
import { bodyOf } from 'gw/plugin/format';
import type { Embeddings } from '../../core/pipeline/embed.ts';
import { embeddingsRequestSchema } from './schema.ts';

/** The embeddings declaration (no native operation: the common request is every provider's). */
export const chatEmbeddings: Embeddings = {
  schema: embeddingsRequestSchema,
  read: (ctx) => ({ model: bodyOf(ctx).model as string }),
  toCommon: (body) => ({ req: body as unknown as EmbeddingsRequest, unchanged: true }),
  fromCommon: (res, raw) => raw ?? JSON.stringify(res),
  input: (body) => body.input,
};
