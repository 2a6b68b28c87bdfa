/**
 * The request schema of POST /v1/messages: validates bodies on the hot path and feeds
 * /openapi.json. Open objects: passthrough forwards what it does not know unchanged.
 * @see Anthropic API: Messages
 */
import { z } from 'zod';
import { capped, MAX_TOOLS, MAX_TURNS } from 'gw/plugin/format';

const block = z.looseObject({ type: z.string() });
const message = z.looseObject({ role: z.string().min(1), content: z.union([z.string(), z.array(block)]) });
const tools = capped(z.unknown(), MAX_TOOLS, 'tools').optional();

export const messagesRequestSchema = z
  .looseObject({
    model: z.string().min(1),
    max_tokens: z.number().int().positive(),
    messages: capped(message, MAX_TURNS, 'messages').min(1),
    system: z.union([z.string(), z.array(block)]).optional(),
    stream: z.boolean().optional(),
    tools,
  })
  .meta({ id: 'MessagesRequest', description: 'Anthropic Messages request; forwarded unchanged to Messages-format upstreams' });

export const countTokensRequestSchema = z
  .looseObject({
    model: z.string().min(1),
    messages: capped(message, MAX_TURNS, 'messages').min(1),
    system: z.union([z.string(), z.array(block)]).optional(),
    tools,
  })
  .meta({ id: 'MessagesCountTokensRequest', description: 'Anthropic count_tokens request' });

export const messagesErrorSchema = z
  .object({ type: z.literal('error'), error: z.object({ type: z.string(), message: z.string() }) })
  .meta({ id: 'MessagesError' });
