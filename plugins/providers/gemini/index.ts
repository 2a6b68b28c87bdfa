/**
 * The `gemini` kind: Google's Gemini API (`generativelanguage.googleapis.com/v1beta`), the Gemini
 * protocol's vendor side (`gw/plugin/gemini`) over gw's one vendor loop: chat, streams (`alt=sse`),
 * embeddings (batchEmbedContents), model discovery; Gemini clients get native passthrough.
 * `base_url` is the API origin (a trailing `/v1beta` is tolerated). Auth: `x-goog-api-key`.
 * @see Gemini API reference
 */
import { defineProvider, providerBaseSchema, vendorProvider } from 'gw/plugin';
import { gemini, geminiOrigin } from 'gw/plugin/gemini';

export default defineProvider({
  name: 'gemini',
  configSchema: providerBaseSchema,
  routing: ['max_retries', 'weight'],
  setup: (ctx) => vendorProvider(ctx, { protocol: gemini, origin: geminiOrigin(ctx.config.base_url), auth: { 'x-goog-api-key': ctx.config.api_key } }),
});
