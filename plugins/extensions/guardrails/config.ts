/**
 * `[extensions.guardrails]`: named checks (`[extensions.guardrails.checks.<name>]`), each a
 * type (`secrets`, `pii`, `regex`, `webhook`), the phases it reads, what a hit does, and the
 * keys it applies to; `redact_stored` for gw's own records. The key setting `guardrails =
 * ["name", "-name"]` is lib/key-settings.ts's; {@link keyGuardrailsProblem} checks its names. docs/guardrails.md.
 */
import { isSupportedCountry } from 'libphonenumber-js/max';
import { z } from 'zod';
import { PII_ENTITIES } from './detectors/pii.ts';

/** A check's name: it is a metrics label, a header value and a key setting's entry. */
const CHECK_NAME = /^[a-z0-9_]{1,64}$/;

const phases = z
  .array(z.enum(['request', 'response'], { error: 'expected "request" or "response"' }))
  .min(1, 'give at least one phase')
  .refine((list) => new Set(list).size === list.length, 'a phase is listed twice')
  .default(['request', 'response']);

/** What every check takes. */
const common = {
  /** `request`: system text, messages, tool results and tool definitions; `response`: text, tool-call arguments, reasoning. */
  phase: phases,
  /** `block`: refuse (400 `guardrail_blocked`); `mask`: replace each match by a placeholder naming its type; `monitor`: record only. */
  action: z.enum(['block', 'mask', 'monitor'], { error: 'expected "block", "mask" or "monitor"' }),
  /** Key names the check applies to; with `tags`, a key matching either. Absent (and no `tags`): every key. */
  keys: z.array(z.string().min(1)).min(1).optional(),
  /** Tags a key must all carry (`{ team = "payments" }`) for the check to apply to it. */
  tags: z.record(z.string().min(1), z.string()).optional(),
};

const secretsCheck = z.strictObject({
  type: z.literal('secrets'),
  ...common,
  /** Exact values never reported (a documentation example key, a test fixture's). */
  allow: z.array(z.string().min(1)).default([]),
});

const piiCheck = z.strictObject({
  type: z.literal('pii'),
  ...common,
  entities: z
    .array(z.enum(PII_ENTITIES, { error: `expected one of ${PII_ENTITIES.join(', ')}` }))
    .min(1, `give at least one of ${PII_ENTITIES.join(', ')}`)
    .refine((list) => new Set(list).size === list.length, 'an entity is listed twice'),
  /** Regions whose national phone numbers are found (ISO 3166-1 alpha-2); numbers in `+<country code>` form always are. */
  phone_regions: z
    .array(z.string().refine((code) => isSupportedCountry(code), { error: 'expected an ISO 3166-1 alpha-2 region, e.g. "US", "GB", "DE"' }))
    .min(1)
    .default(['US']),
});

const regexCheck = z.strictObject({
  type: z.literal('regex'),
  ...common,
  /** RE2 syntax (linear-time: no backreferences, no lookaround). */
  patterns: z.array(z.string().min(1, 'a pattern is empty')).min(1, 'give at least one pattern'),
  /** What a match is called in outcomes and its placeholder (`[TICKET_ID]`); default: the check's name. */
  entity: z.string().regex(CHECK_NAME, 'expected lower-case letters, digits and _').optional(),
  /** Longest match, characters: what a stream holds back for this check (a longer match split across events is caught only in part). */
  max_length: z.number().int().min(1).max(65_536).default(256),
});

const webhookCheck = z.strictObject({
  type: z.literal('webhook'),
  ...common,
  url: z.url({ protocol: /^https?$/, error: 'expected an http:// or https:// URL' }),
  /** Sent with every call (`${VAR}` is expanded from the environment when the config loads). */
  headers: z.record(z.string().regex(/^[A-Za-z0-9-]+$/, 'expected a header name'), z.string()).default({}),
  /** Time for the whole call, ms. */
  timeout_ms: z.number().int().min(1).max(60_000).default(1000),
  /** When the checker fails (timeout, error status, an answer that is not one): `closed` blocks, `open` lets the text through and records it. */
  fail: z.enum(['open', 'closed'], { error: 'expected "open" or "closed"' }).default('closed'),
  /** Largest answer read, bytes; a larger one is a failure. */
  max_response_bytes: z.number().int().min(1024).max(67_108_864).default(4_194_304),
});

export const checkSchema = z.discriminatedUnion('type', [secretsCheck, piiCheck, regexCheck, webhookCheck], {
  error: (issue) => (issue.code === 'invalid_union' ? 'expected "secrets", "pii", "regex" or "webhook"' : undefined),
});

export type CheckConfig = z.output<typeof checkSchema>;

export const guardrailsSchema = z.strictObject({
  /** Scrub stored bodies (request log `log_bodies`, the logging extension's trace line, otel `capture_content`) with every check's detector; default: on when any check exists. */
  redact_stored: z.boolean().optional(),
  checks: z
    .record(z.string(), checkSchema)
    .superRefine((checks, ctx) => {
      for (const name of Object.keys(checks))
        if (!CHECK_NAME.test(name)) ctx.addIssue({ code: 'custom', path: [name], message: 'a check name is lower-case letters, digits and _ (1 to 64)' });
    })
    .default({}),
});

export type GuardrailsConfig = z.output<typeof guardrailsSchema>;

/** Whether stored bodies are scrubbed: as set, else when any check exists. */
export function redactsStored(config: GuardrailsConfig): boolean {
  return config.redact_stored ?? Object.keys(config.checks).length > 0;
}

/** What is wrong with a key's `guardrails` list given the configured check names (a message naming the entry), or undefined. */
export function keyGuardrailsProblem(list: readonly string[], checkNames: ReadonlySet<string>): string | undefined {
  for (const entry of list) {
    const name = entry.startsWith('-') ? entry.slice(1) : entry;
    if (!checkNames.has(name)) return `guardrails: no check named '${name}' (known: ${[...checkNames].join(', ') || 'none'})`;
  }
  return undefined;
}
