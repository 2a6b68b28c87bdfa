/**
 * Validating a request body against a client format's zod schema: the first problem as a
 * 400 naming the field. (The schemas live with their formats, in plugins/formats/.)
 */
import type { z } from 'zod';
import { formatPath } from './config/error.ts';
import { INVALID_REQUEST } from '../core/error-codes.ts';
import type { GatewayError } from '../core/errors.ts';

/**
 * Validates `body`; returns the first problem as a 400 naming the field, or undefined.
 * The body is used as sent (zod's output copy is discarded). zod's messages state the rule
 * from the schema's side (expected type, bounds, options) and the received value's type,
 * never the value, except for unrecognized keys, which they list: the log-safe message
 * counts those instead (GatewayError.logMessage).
 */
export function validate(schema: z.ZodType, body: unknown): GatewayError | undefined {
  const r = schema.safeParse(body);
  return r.success ? undefined : invalidBody(r.error.issues[0]!);
}

/** The 400 for a zod issue (its path under `prefix`, when the value checked sat there in the body). */
export function invalidBody(first: z.core.$ZodIssue, prefix: readonly PropertyKey[] = []): GatewayError {
  const { issue, path } = specific(first, prefix);
  const param = formatPath(path);
  const at = param ? `invalid request body: ${param}: ` : 'invalid request body: ';
  // the stores keep how many keys were unknown, not their names (the client's text)
  const logMessage = issue.code === 'unrecognized_keys' ? `${at}${issue.keys.length} unrecognized key${issue.keys.length === 1 ? '' : 's'}` : undefined;
  return INVALID_REQUEST(at + issue.message, { param: param || null, logMessage });
}

/**
 * A union that failed is reported by zod as "Invalid input" for the union as a whole. When
 * the value had the type of some of its options (an array where a string or an array is
 * allowed), the first such option's own first issue says what is wrong (`input: at most
 * 16384 input entries per request`, `content[2].type: …`), so that one is reported.
 */
function specific(issue: z.core.$ZodIssue, prefix: readonly PropertyKey[]): { issue: z.core.$ZodIssue; path: PropertyKey[] } {
  const path = [...prefix, ...issue.path];
  if (issue.code !== 'invalid_union') return { issue, path };
  const typed = issue.errors.find((branch) => !branch.every((i) => i.code === 'invalid_type' && i.path.length === 0));
  return typed?.[0] ? specific(typed[0], path) : { issue, path };
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
