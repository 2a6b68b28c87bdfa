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
 * The body is used as sent (zod's output copy is discarded). zod's messages state the rule
 * from the schema's side (expected type, bounds, options) and the received value's type,
 * never the value, except for unrecognized keys, which they list: the log-safe message
 * counts those instead (GatewayError.logMessage).
 */
export function validate(schema: z.ZodType, body: unknown): GatewayError | undefined {
  const r = schema.safeParse(body);
  if (r.success) return undefined;
  const issue = r.error.issues[0]!;
  const param = formatPath(issue.path);
  const at = param ? `invalid request body: ${param}: ` : 'invalid request body: ';
  const logMessage = issue.code === 'unrecognized_keys' ? `${at}${issue.keys.length} unrecognized key${issue.keys.length === 1 ? '' : 's'}` : undefined;
  return INVALID_REQUEST(at + issue.message, { param: param || null, logMessage });
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
