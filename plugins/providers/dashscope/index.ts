/**
 * The `dashscope` kind (Alibaba Cloud Model Studio, Qwen; family A). Chat and embeddings
 * go to the OpenAI-compatible origin and pass through unchanged, vendor fields included
 * (`enable_thinking`, `thinking_budget`, `enable_search` in requests, `reasoning_content`
 * in answers; explicit-cache writes also under the common `cache_write_tokens`, quirks.ts); /v1/messages goes natively to the Anthropic-compatible origin. Models are
 * discovered from the common origin's `/models` (the Messages origin has none).
 * Auth: `Authorization: Bearer` on both origins (the Messages origin also accepts
 * `x-api-key`; gw sends Bearer).
 * Regions: international (default) `https://dashscope-intl.aliyuncs.com/compatible-mode/v1`;
 * mainland China `https://dashscope.aliyuncs.com/compatible-mode/v1` via `base_url`
 * (and `https://dashscope.aliyuncs.com/apps/anthropic` via `messages_base_url`).
 * @see Alibaba Cloud Model Studio: OpenAI compatibility
 * @see Alibaba Cloud Model Studio: Anthropic API compatibility
 */
import { defineProvider, providerBaseSchema, vendorProvider } from 'gw/plugin';
import { anthropicMessages, messagesBaseUrlSchema } from 'gw/plugin/anthropic-messages';
import { openaiChat } from 'gw/plugin/openai-chat';
import { dashScopeChunkNeedsMap, mapDashScopeChunk, mapDashScopeCompletion } from './quirks.ts';

export const DASHSCOPE_BASE_URL = 'https://dashscope-intl.aliyuncs.com/compatible-mode/v1';
export const DASHSCOPE_MESSAGES_ORIGIN = 'https://dashscope-intl.aliyuncs.com/apps/anthropic';

export default defineProvider({
  name: 'dashscope',
  configSchema: providerBaseSchema.extend({ messages_base_url: messagesBaseUrlSchema }),
  routing: ['max_retries', 'weight'],
  setup: (ctx) =>
    vendorProvider(ctx, {
      protocol: openaiChat,
      origin: ctx.config.base_url ?? DASHSCOPE_BASE_URL,
      auth: { authorization: `Bearer ${ctx.config.api_key}` },
      quirks: { chunkIf: dashScopeChunkNeedsMap, chunk: mapDashScopeChunk, completion: mapDashScopeCompletion },
      // Bearer on the Messages origin too
      native: [{ protocol: anthropicMessages, origin: ctx.config.messages_base_url ?? DASHSCOPE_MESSAGES_ORIGIN }],
    }),
});
