/**
 * POST /v1/messages/count_tokens → `{"input_tokens": n}` as a count-tokens declaration: kinds
 * with a Messages origin count natively (their answer passes through unchanged); for every other
 * kind gw estimates from the request's content and says so.
 * @see Anthropic API: Count Message tokens
 */
import { bodyOf } from 'gw/plugin/format';
import type { CountTokens } from '../../core/pipeline/count.ts';
import { estimateTokens } from '../../lib/common/estimate.ts';
import { countTokensRequestSchema } from './schema.ts';

/** The count_tokens declaration. */
export const messagesCountTokens: CountTokens = {
  schema: countTokensRequestSchema,
  read: (ctx) => ({ model: bodyOf(ctx).model as string }),
  nativeOp: 'count_tokens',
  estimate: (body) => ({ input_tokens: estimateTokens({ system: body.system, messages: body.messages, tools: body.tools }) }),
};
