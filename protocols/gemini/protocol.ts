/** The Gemini API's protocol as one object, assembled from the kit's files. */
import type { Protocol } from 'gw/plugin/format';
import { geminiContent } from './content.ts';
import { geminiCountTokens } from './count-tokens.ts';
import { geminiEmbeddings } from './embeddings.ts';
import { geminiGenerate } from './generate.ts';
import { googleErrorBody } from './google-error.ts';
import { listGeminiModels, toGeminiModel } from './models.ts';
import { generateContentRequestSchema, googleErrorSchema } from './schemas.ts';
import type { GenerateContentResponse } from './types.ts';
import { geminiVendor } from './vendor.ts';

const first = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

/** The Gemini API (`gemini`). @see Gemini API reference */
export const gemini = {
  id: 'gemini',
  label: 'Gemini',
  keyFrom: ['x-goog-api-key', 'query-key', 'bearer'],
  errorBody: googleErrorBody,
  schema: { request: generateContentRequestSchema, error: googleErrorSchema },
  operationName: 'generate_content',
  content: geminiContent,
  client: {
    generate: geminiGenerate,
    countTokens: geminiCountTokens,
    embeddings: geminiEmbeddings,
    models: {
      list: (models, query) =>
        listGeminiModels(
          models.map((m) => m.id),
          { pageSize: first(query.pageSize), pageToken: first(query.pageToken) },
        ),
      one: (model) => toGeminiModel(model.id),
    },
  },
  vendor: geminiVendor,
} as const satisfies Protocol<GenerateContentResponse>;
