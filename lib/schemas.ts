/** Validating a request body against a client format's zod schema: the first problem as a 400 naming the field. */
import type { z } from 'zod';
import { formatPath } from './config/error.ts';
import { INVALID_REQUEST } from '../core/error-codes.ts';
import type { GatewayError } from '../core/errors.ts';

/** The first problem of `body` as a 400 naming the field, or undefined; unknown keys are counted, not listed, in the log message. */
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

/** A failed union's issue, or the first issue of the first option the value had the type of (what is really wrong). */
function specific(issue: z.core.$ZodIssue, prefix: readonly PropertyKey[]): { issue: z.core.$ZodIssue; path: PropertyKey[] } {
  const path = [...prefix, ...issue.path];
  if (issue.code !== 'invalid_union') return { issue, path };
  const typed = issue.errors.find((branch) => !branch.every((i) => i.code === 'invalid_type' && i.path.length === 0));
  return typed?.[0] ? specific(typed[0], path) : { issue, path };
}

/** zod's output of `body` (transforms applied). @throws GatewayError 400 naming the first field at fault. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const r = schema.safeParse(body);
  if (r.success) return r.data;
  throw validate(schema, body)!;
}
