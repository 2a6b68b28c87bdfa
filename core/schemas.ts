/**
 * Validating a request body against a client format's zod schema: the first problem as a
 * 400 naming the field. (The schemas live with their formats, in plugins/formats/.)
 */
import type { z } from 'zod';
import { formatPath } from './config/error.ts';
import { INVALID_REQUEST } from './error-codes.ts';
import type { GatewayError } from './errors.ts';

/**
 * Validates `body`; returns the first problem as a 400 naming the field, or undefined.
 * The body is used as sent (zod's output copy is discarded).
 */
export function validate(schema: z.ZodType, body: unknown): GatewayError | undefined {
  const r = schema.safeParse(body);
  if (r.success) return undefined;
  const issue = r.error.issues[0]!;
  const param = formatPath(issue.path);
  return INVALID_REQUEST(param ? `invalid request body: ${param}: ${issue.message}` : `invalid request body: ${issue.message}`, { param: param || null });
}

/**
 * Parses `body` with `schema` and returns zod's output (transforms applied, e.g. an expiry
 * normalized to RFC 3339 UTC).
 * @throws GatewayError 400 naming the first field at fault.
 */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const r = schema.safeParse(body);
  if (r.success) return r.data;
  throw validate(schema, body)!;
}
