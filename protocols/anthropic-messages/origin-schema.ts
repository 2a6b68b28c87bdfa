/** The setting of a vendor that also serves Messages at an origin of its own (dashscope, zhipu, a third party's). */
import { z } from 'zod';

/** `messages_base_url`: the Messages origin without `/v1`, e.g. "https://dashscope-intl.aliyuncs.com/apps/anthropic". */
export const messagesBaseUrlSchema = z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' }).optional();
