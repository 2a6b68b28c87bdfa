/**
 * Kinds with a common-format origin and a Messages-format origin (dashscope, zhipu, a third
 * party's vendor that serves both): `base_url` overrides only the common origin,
 * `messages_base_url` only the Messages one (origin without `/v1`).
 */
import { type Provider, type ProviderSetup, providerBaseSchema } from 'gw/plugin';
import { type CompatibleSettings, createCompatibleProvider } from 'gw/plugin/openai-chat';
import { z } from 'zod';
import { readMessagesError } from './errors.ts';
import { messagesPassthrough } from './passthrough.ts';

export const dualOriginSchema = providerBaseSchema.extend({
  /** Messages-format origin without `/v1`, e.g. "https://dashscope-intl.aliyuncs.com/apps/anthropic". */
  messages_base_url: z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' }).optional(),
});

export type DualOriginConfig = z.output<typeof dualOriginSchema>;

/**
 * A dual-origin provider (dashscope, zhipu): the common-format origin through
 * createCompatibleProvider, /v1/messages natively to the Messages origin, Bearer on both.
 * `quirks` are the kind's stream/completion fix-ups.
 */
export function createDualOriginProvider(
  ctx: ProviderSetup<DualOriginConfig>,
  origins: { common: string; messages: string },
  quirks: Pick<CompatibleSettings, 'mapChunk' | 'mapChunkIf' | 'mapCompletion'> = {},
): Provider {
  const { name, config, http } = ctx;
  const timeoutMs = config.timeout_seconds * 1000;
  const auth = { authorization: `Bearer ${config.api_key}` };
  return createCompatibleProvider({
    name,
    kind: config.kind ?? name,
    baseUrl: config.base_url ?? origins.common,
    models: config.models ?? [],
    http: http({ timeoutMs }),
    headers: auth,
    ...quirks,
    native: {
      'anthropic-messages': messagesPassthrough(http({ timeoutMs, readError: readMessagesError }), config.messages_base_url ?? origins.messages, auth),
    },
  });
}
