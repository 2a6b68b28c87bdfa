/**
 * The `anthropic` kind: the Messages protocol's vendor side (`gw/plugin/anthropic-messages`;
 * its README.md lists every translation decision) over gw's one vendor loop. Chat completions
 * are translated to Messages; Messages clients get native passthrough; no embeddings (the core
 * answers 400); models discovered from `GET {origin}/v1/models`, following its pages.
 * Auth: `x-api-key`; every call carries `anthropic-version` (the client's, else 2023-06-01).
 * `base_url` is the origin without `/v1` (default https://api.anthropic.com).
 * @see Anthropic API: Messages
 */
import { defineProvider, providerBaseSchema, vendorProvider } from 'gw/plugin';
import { anthropicMessages } from 'gw/plugin/anthropic-messages';

export const ANTHROPIC_ORIGIN = 'https://api.anthropic.com';

export default defineProvider({
  name: 'anthropic',
  configSchema: providerBaseSchema,
  routing: ['max_retries', 'weight'],
  setup: (ctx) =>
    vendorProvider(ctx, { protocol: anthropicMessages, origin: ctx.config.base_url ?? ANTHROPIC_ORIGIN, auth: { 'x-api-key': ctx.config.api_key } }),
});
