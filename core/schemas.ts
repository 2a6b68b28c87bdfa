/**
 * Request schemas for the gateway routes: they validate bodies on the hot path and feed
 * /openapi.json (z.toJSONSchema). Open objects: fields gw does not know pass through to
 * common-format upstreams unchanged (DESIGN.md), so nothing here strips.
 */
import { z } from 'zod';
import { formatPath } from './config/error.ts';
import { badRequest, type GatewayError } from './errors.ts';

const contentPart = z.looseObject({ type: z.string() }).meta({ description: 'A content part: text, image_url, …' });

export const chatMessageSchema = z.looseObject({
  role: z.string().min(1).meta({ description: 'system, developer, user, assistant or tool' }),
  content: z.union([z.string(), z.array(contentPart), z.null()]).optional(),
  tool_calls: z.array(z.looseObject({ id: z.string(), type: z.string(), function: z.looseObject({ name: z.string(), arguments: z.string() }) })).optional(),
  tool_call_id: z.string().optional(),
});

export const chatRequestSchema = z.looseObject({
  model: z.string().min(1).meta({ description: 'Model id or alias' }),
  messages: z.array(chatMessageSchema).min(1),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
  max_tokens: z.number().int().positive().nullish(),
  max_completion_tokens: z.number().int().positive().nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  n: z.number().int().positive().nullish(),
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
  tools: z.array(z.looseObject({ type: z.string(), function: z.looseObject({ name: z.string().min(1) }).optional() })).optional(),
  tool_choice: z.union([z.string(), z.looseObject({ type: z.string() })]).optional(),
}).meta({ id: 'ChatCompletionRequest', description: 'OpenAI chat completions request; other fields pass through' });

export const embeddingsRequestSchema = z.looseObject({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(z.string()).min(1), z.array(z.number()).min(1), z.array(z.array(z.number())).min(1)]),
  encoding_format: z.enum(['float', 'base64']).optional(),
  dimensions: z.number().int().positive().optional(),
}).meta({ id: 'EmbeddingsRequest', description: 'OpenAI embeddings request' });

const messagesBlock = z.looseObject({ type: z.string() });

export const messagesRequestSchema = z.looseObject({
  model: z.string().min(1),
  max_tokens: z.number().int().positive(),
  messages: z.array(z.looseObject({ role: z.string().min(1), content: z.union([z.string(), z.array(messagesBlock)]) })).min(1),
  system: z.union([z.string(), z.array(messagesBlock)]).optional(),
  stream: z.boolean().optional(),
}).meta({ id: 'MessagesRequest', description: 'Anthropic Messages request; forwarded unchanged to Messages-format upstreams' });

/**
 * Validates `body`; returns the first problem as a 400 naming the field, or undefined.
 * The body is used as sent (zod's output copy is discarded).
 */
export function validate(schema: z.ZodType, body: unknown): GatewayError | undefined {
  const r = schema.safeParse(body);
  if (r.success) return undefined;
  const issue = r.error.issues[0]!;
  const param = formatPath(issue.path);
  return badRequest(param ? `invalid request body: ${param}: ${issue.message}` : `invalid request body: ${issue.message}`, param || null, 'invalid_request_body');
}
