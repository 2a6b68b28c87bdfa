/**
 * Config of kinds with a common-format origin and a Messages-format origin (dashscope,
 * zhipu): `base_url` overrides only the common origin, `messages_base_url` only the
 * Messages one (origin without `/v1`).
 */
import { z } from 'zod';
import { providerBaseSchema } from '../../../core/plugins/provider-schema.ts';

export const dualOriginSchema = providerBaseSchema.extend({
  /** Messages-format origin without `/v1`, e.g. "https://dashscope-intl.aliyuncs.com/apps/anthropic". */
  messages_base_url: z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' }).optional(),
});

export type DualOriginConfig = z.output<typeof dualOriginSchema>;
