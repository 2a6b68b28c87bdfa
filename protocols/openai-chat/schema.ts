/**
 * Request schemas of the chat completions and embeddings routes (hot-path validation and
 * /openapi.json). Open objects: unknown fields pass through unchanged. Value ranges are the
 * upstream's to judge (a self-hosted model may accept a temperature OpenAI does not).
 * @see OpenAI API reference: Create chat completion
 */
import { z } from 'zod';
import { capped, MAX_TOOLS, MAX_TURNS } from 'gw/plugin/format';
import { MAX_EMBEDDING_INPUTS } from '../../lib/common/limits.ts';

const contentPart = z.looseObject({ type: z.string() }).meta({ description: 'A content part: text, image_url, …' });

export const chatMessageSchema = z.looseObject({
  role: z.string().min(1).meta({ description: 'system, developer, user, assistant or tool' }),
  content: z.union([z.string(), z.array(contentPart), z.null()]).optional(),
  tool_calls: z.array(z.looseObject({ id: z.string(), type: z.string(), function: z.looseObject({ name: z.string(), arguments: z.string() }) })).optional(),
  tool_call_id: z.string().optional(),
});

export const chatRequestSchema = z
  .looseObject({
    model: z.string().min(1).meta({ description: 'Model id or alias' }),
    messages: capped(chatMessageSchema, MAX_TURNS, 'messages').min(1),
    stream: z.boolean().nullish(),
    stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
    max_tokens: z.number().int().positive().nullish(),
    max_completion_tokens: z.number().int().positive().nullish(),
    temperature: z.number().nullish(),
    top_p: z.number().nullish(),
    n: z.number().int().positive().nullish(),
    stop: z.union([z.string(), z.array(z.string())]).nullish(),
    tools: capped(
      z.looseObject({
        type: z.string(),
        function: z.looseObject({ name: z.string().min(1), parameters: z.record(z.string(), z.unknown()).optional() }).optional(),
      }),
      MAX_TOOLS,
      'tools',
    ).optional(),
    tool_choice: z.union([z.string(), z.looseObject({ type: z.string() })]).optional(),
  })
  .meta({ id: 'ChatCompletionRequest', description: 'OpenAI chat completions request; other fields pass through' });

export const embeddingsRequestSchema = z
  .looseObject({
    model: z.string().min(1),
    input: z.union([
      z.string(),
      capped(z.string(), MAX_EMBEDDING_INPUTS, 'entries').min(1),
      capped(z.number(), MAX_EMBEDDING_INPUTS, 'entries').min(1),
      capped(z.array(z.number()), MAX_EMBEDDING_INPUTS, 'entries').min(1),
    ]),
    encoding_format: z.enum(['float', 'base64']).optional(),
    dimensions: z.number().int().positive().optional(),
  })
  .meta({ id: 'EmbeddingsRequest', description: 'OpenAI embeddings request' });
