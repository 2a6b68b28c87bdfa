/**
 * The OpenAPI 3.1 document, generated from the zod schemas that validate requests
 * (z.toJSONSchema), so the docs cannot drift from what the gateway accepts.
 */
import { z } from 'zod';
import { chatRequestSchema, embeddingsRequestSchema, messagesRequestSchema } from './schemas.ts';

const errorSchema = z.object({
  error: z.object({ message: z.string(), type: z.string(), code: z.string().nullable(), param: z.string().nullable() }),
}).meta({ id: 'Error' });
const messagesErrorSchema = z.object({ type: z.literal('error'), error: z.object({ type: z.string(), message: z.string() }) }).meta({ id: 'MessagesError' });
const usageEntry = z.object({ key: z.string(), model: z.string(), prompt_tokens: z.number().int(), completion_tokens: z.number().int() }).meta({ id: 'UsageEntry' });
const budgetEntry = z.object({ key: z.string(), spent_usd: z.number(), budget_usd: z.number(), remaining_usd: z.number() }).meta({ id: 'BudgetEntry' });

function schemaOf(s: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(s, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
}

function errors(messages = false): Record<string, unknown> {
  const ref = { content: { 'application/json': { schema: schemaOf(messages ? messagesErrorSchema : errorSchema) } } };
  const out: Record<string, unknown> = {};
  const texts: Record<string, string> = { 400: 'Invalid body (names the field)', 401: 'Missing or unknown gateway key', 404: 'Unknown model (lists close matches)', 413: 'Body larger than max_body_bytes', 415: 'Content type is not JSON', 429: 'Rate limit or budget exceeded', 502: 'Upstream failure', 504: 'Upstream timeout' };
  for (const [code, description] of Object.entries(texts)) out[code] = { description, ...ref };
  return out;
}

let cached: string | undefined;

/** The document as JSON text (built once). */
export function openApiDocument(): string {
  if (cached) return cached;
  const bearer = [{ bearer: [] }];
  const admin = [{ admin: [] }];
  const doc = {
    openapi: '3.1.0',
    info: { title: 'gw', version: '1', description: 'An LLM gateway: OpenAI-format chat and embeddings for every provider, Anthropic Messages passthrough and translation.' },
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'A gateway key ([keys.<name>] or created with `gw keys create`)' },
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'A gateway key, as Anthropic clients send it (/v1/messages only)' },
        admin: { type: 'http', scheme: 'bearer', description: 'The admin token' },
      },
    },
    paths: {
      '/v1/chat/completions': { post: { summary: 'Create a chat completion (stream: true → text/event-stream)', security: bearer, requestBody: { required: true, content: { 'application/json': { schema: schemaOf(chatRequestSchema) } } }, responses: { 200: { description: 'chat.completion, or SSE chat.completion.chunk events ending with data: [DONE]' }, ...errors() } } },
      '/v1/embeddings': { post: { summary: 'Create embeddings', security: bearer, requestBody: { required: true, content: { 'application/json': { schema: schemaOf(embeddingsRequestSchema) } } }, responses: { 200: { description: 'list of embeddings' }, ...errors() } } },
      '/v1/messages': { post: { summary: 'Anthropic Messages: native passthrough, or translated for common-format providers', security: [{ apiKey: [] }, { bearer: [] }], requestBody: { required: true, content: { 'application/json': { schema: schemaOf(messagesRequestSchema) } } }, responses: { 200: { description: 'message, or SSE Messages events' }, ...errors(true) } } },
      '/v1/models': { get: { summary: 'List models and aliases', security: bearer, responses: { 200: { description: 'OpenAI list of models' }, 401: errors()[401] } } },
      '/v1/usage': { get: { summary: 'Token usage per key and model (usage extension)', security: admin, responses: { 200: { description: 'usage entries', content: { 'application/json': { schema: schemaOf(z.array(usageEntry)) } } } } } },
      '/v1/budget': { get: { summary: 'USD spend per key (budget extension)', security: admin, responses: { 200: { description: 'budget entries', content: { 'application/json': { schema: schemaOf(z.array(budgetEntry)) } } } } } },
      '/v1/cache': { delete: { summary: 'Clear the response cache (cache extension)', security: admin, responses: { 204: { description: 'cleared' } } } },
      '/health': { get: { summary: 'Liveness', responses: { 200: { description: 'ok' } } } },
    },
  };
  cached = JSON.stringify(doc);
  return cached;
}
