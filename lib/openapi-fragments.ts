/**
 * OpenAPI 3.1 fragments of an operation, built from the zod schemas that validate it: what a
 * client format gives each route (server/openapi.ts assembles the document).
 */
import { z } from 'zod';

/** A zod schema as a JSON Schema (draft 2020-12, input side). */
export function schemaOf(s: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(s, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
}

/** `requestBody` of an operation validated by `s`. */
export function jsonRequestBody(s: z.ZodType): Record<string, unknown> {
  return { required: true, content: { 'application/json': { schema: schemaOf(s) } } };
}

const OPENAI_ERROR = z
  .object({
    error: z.object({ message: z.string(), type: z.string(), code: z.string().nullable(), param: z.string().nullable() }),
  })
  .meta({ id: 'Error' });

/** The usual error responses of an operation, with `errorSchema` as their body (OpenAI's shape by default). */
export function errorResponses(codes: number[], errorSchema: Record<string, unknown> = schemaOf(OPENAI_ERROR)): Record<string, unknown> {
  const texts: Record<number, string> = {
    400: 'Invalid body (names the field)',
    401: 'Missing or unknown key',
    403: 'Not allowed',
    404: 'Not found (an unknown model lists close matches)',
    409: 'Name taken, or defined in the config file',
    413: 'Body larger than max_body_bytes',
    415: 'Content type is not JSON',
    429: 'Rate limit or budget exceeded',
    502: 'Upstream failure',
    503: 'Unavailable (store, circuit)',
    504: 'Upstream timeout',
  };
  const out: Record<string, unknown> = {};
  for (const c of codes) out[c] = { description: texts[c] ?? 'Error', content: { 'application/json': { schema: errorSchema } } };
  return out;
}
