/**
 * The `gemini` kind: Google's Gemini API (`generativelanguage.googleapis.com/v1beta`), over the
 * Gemini kit (`gw/plugin/gemini`). `base_url` is the API origin (default the kit's
 * GEMINI_ORIGIN; a trailing `/v1beta` is tolerated). Auth: `x-goog-api-key: <api_key>`. Chat,
 * streams, embeddings and model discovery; the Gemini client format's routes pass through
 * natively (`native.gemini`).
 * @see https://ai.google.dev/api
 */
import { defineProvider, providerBaseSchema } from 'gw/plugin';
import { geminiOrigin, readGeminiError } from 'gw/plugin/gemini';
import { createGeminiProvider } from './provider.ts';

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
