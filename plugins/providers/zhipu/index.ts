/**
 * The `zhipu` kind (Zhipu AI / Z.AI, GLM; family B). Chat and embeddings go to the
 * OpenAI-like origin and pass through (vendor fields such as `thinking` and
 * `reasoning_content` included), with `finish_reason: "sensitive"` mapped to
 * `content_filter` (quirks.ts); /v1/messages goes natively to the Anthropic-compatible
 * origin. Models are discovered from the common origin's `/models`.
 * Auth: `Authorization: Bearer` on both origins.
 * Default origins: `https://open.bigmodel.cn/api/paas/v4` and
 * `https://open.bigmodel.cn/api/anthropic`; Z.AI (international) is
 * `https://api.z.ai/api/paas/v4` and `https://api.z.ai/api/anthropic` via `base_url` and
 * `messages_base_url`.
 * @see Zhipu BigModel docs: OpenAI compatibility
 * @see Zhipu BigModel docs: Claude (Anthropic) compatibility
 */
import { defineProvider, providerBaseSchema, vendorProvider } from 'gw/plugin';
import { anthropicMessages, messagesBaseUrlSchema } from 'gw/plugin/anthropic-messages';
import { openaiChat } from 'gw/plugin/openai-chat';
import { mapZhipuChunk, mapZhipuCompletion, zhipuChunkNeedsMap } from './quirks.ts';

export const ZHIPU_BASE_URL = 'https://open.bigmodel.cn/api/paas/v4';
export const ZHIPU_MESSAGES_ORIGIN = 'https://open.bigmodel.cn/api/anthropic';

export default defineProvider({
  name: 'zhipu',
  configSchema: providerBaseSchema.extend({ messages_base_url: messagesBaseUrlSchema }),
  routing: ['max_retries', 'weight'],
  setup: (ctx) =>
    vendorProvider(ctx, {
      protocol: openaiChat,
      origin: ctx.config.base_url ?? ZHIPU_BASE_URL,
      auth: { authorization: `Bearer ${ctx.config.api_key}` },
      quirks: { chunkIf: zhipuChunkNeedsMap, chunk: mapZhipuChunk, completion: mapZhipuCompletion },
      // Bearer on the Messages origin too
      native: [{ protocol: anthropicMessages, origin: ctx.config.messages_base_url ?? ZHIPU_MESSAGES_ORIGIN }],
    }),
});
