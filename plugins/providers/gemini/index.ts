/**
 * The `gemini` kind: Google's Gemini API (`generativelanguage.googleapis.com/v1beta`).
 * `base_url` is the API origin (default below; a trailing `/v1beta` is tolerated).
 * Auth: `x-goog-api-key: <api_key>`. Chat, streams, embeddings and model discovery;
 * /v1/messages is translated by the core around `chat`.
 * @see https://ai.google.dev/api
 */
import { defineProvider } from '../../../core/plugins/contract.ts';
import { providerBaseSchema } from '../../../core/plugins/provider-schema.ts';
import { geminiOrigin } from './endpoints.ts';
import { readGeminiError } from './map-error.ts';
import { createGeminiProvider } from './provider.ts';

export { GEMINI_ORIGIN } from './endpoints.ts';

export default defineProvider({
  name: 'gemini',
  configSchema: providerBaseSchema,
  routing: ['max_retries', 'weight'],
  setup({ name, config, http }) {
    return createGeminiProvider({
      name,
      kind: config.kind ?? name,
      origin: geminiOrigin(config.base_url),
      apiKey: config.api_key,
      models: config.models ?? [],
      http: http({ timeoutMs: config.timeout_seconds * 1000, readError: readGeminiError }),
    });
  },
});
