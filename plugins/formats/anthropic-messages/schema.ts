/**
 * The request schema of POST /v1/messages: validates bodies on the hot path and feeds
 * /openapi.json. Open objects: passthrough forwards what it does not know unchanged.
 * @see https://docs.anthropic.com/en/api/messages
 */
import { z } from 'zod';

const block = z.looseObject({ type: z.string() });

export const messagesRequestSchema = z
  .looseObject({
    model: z.string().min(1),
    max_tokens: z.number().int().positive(),
    messages: z.array(z.looseObject({ role: z.string().min(1), content: z.union([z.string(), z.array(block)]) })).min(1),
    system: z.union([z.string(), z.array(block)]).optional(),
    stream: z.boolean().optional(),
  })
  .meta({ id: 'MessagesRequest', description: 'Anthropic Messages request; forwarded unchanged to Messages-format upstreams' });

export const countTokensRequestSchema = z
  .looseObject({
    model: z.string().min(1),
    messages: z.array(z.looseObject({ role: z.string().min(1), content: z.union([z.string(), z.array(block)]) })).min(1),
    system: z.union([z.string(), z.array(block)]).optional(),
  })
  .meta({ id: 'MessagesCountTokensRequest', description: 'Anthropic count_tokens request' });

export const messagesErrorSchema = z
  .object({ type: z.literal('error'), error: z.object({ type: z.string(), message: z.string() }) })
  .meta({ id: 'MessagesError' });
