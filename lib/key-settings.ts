/**
 * Virtual key settings (docs/design.md "Virtual keys"): what `[keys.<name>]` and the admin
 * API accept beside the secret, one schema for both.
 */
import { z } from 'zod';
import { DATE_TIME_FORMS, parseDateTime } from './dates.ts';
import { usdAmount } from './pricing/bounds.ts';

export const BUDGET_PERIODS = ['daily', 'weekly', 'monthly', 'lifetime'] as const;
/** `budget_period`: `lifetime` never resets (the default). */
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];

/** A key's settings as stored and listed (snake_case, as in TOML); absent = unset. */
export interface KeySettings {
  models?: string[];
  requests_per_minute?: number;
  tokens_per_minute?: number;
  budget?: number;
  budget_period?: BudgetPeriod;
  /** Normalized RFC 3339 in UTC, e.g. `2027-01-01T00:00:00Z`. */
  expires_at?: string;
  tags?: Record<string, string>;
  max_parallel_requests?: number;
  mcp_tools?: string[];
  tool_calls_per_minute?: number;
  guardrails?: string[];
}

/** The longest grace period a rotation may give the previous secret: 30 days. */
export const MAX_GRACE_SECONDS = 30 * 86_400;

/** Every setting's name, in listing order. */
export const KEY_SETTINGS = [
  'models',
  'requests_per_minute',
  'tokens_per_minute',
  'budget',
  'budget_period',
  'expires_at',
  'tags',
  'max_parallel_requests',
  'mcp_tools',
  'tool_calls_per_minute',
  'guardrails',
] as const satisfies ReadonlyArray<keyof KeySettings>;
export type KeySettingName = (typeof KEY_SETTINGS)[number];

/** Epoch ms of an RFC 3339 or TOML expiry (a date alone: 00:00 UTC); else a string saying what is wrong. */
export function parseExpiry(v: string | Date): number | string {
  if (v instanceof Date) {
    const t = v as Date & { isLocal?(): boolean; isDate?(): boolean; isTime?(): boolean };
    if (t.isTime?.()) return 'expected a date or a date-time, got a time of day';
    // a TOML local date-time has no offset: which zone it means is unknown
    if (t.isLocal?.() && !t.isDate?.()) return 'expected a date-time with an offset (e.g. 2027-01-01T00:00:00Z) or a date';
    const ms = v.getTime();
    return Number.isFinite(ms) ? ms : 'expected a valid date';
  }
  return parseDateTime(v);
}

/** RFC 3339 in UTC, without milliseconds when they are zero: `2027-01-01T00:00:00Z`. */
export function rfc3339(ms: number): string {
  const s = new Date(ms).toISOString();
  return s.endsWith('.000Z') ? `${s.slice(0, -5)}Z` : s;
}

const expiresAt = z.union([z.string(), z.date()], { error: `expected ${DATE_TIME_FORMS}` }).transform((v, ctx) => {
  const ms = parseExpiry(v);
  if (typeof ms === 'string') {
    ctx.addIssue({ code: 'custom', message: ms });
    return z.NEVER;
  }
  return rfc3339(ms);
});

const positiveInt = (what: string) =>
  z
    .number({ error: `expected a whole number of ${what}` })
    .int(`expected a whole number of ${what}`)
    .positive(`expected at least 1 ${what.replace(/s$/, '')}`);
const pattern = z.string().min(1, 'expected a model id or a pattern with *').max(256);
const tagName = z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'tag names are 1-64 letters, digits, "_", "-" or "."');
const tagValue = z.string().min(1, 'expected a non-empty tag value').max(256);
const guardrailEntry = z.string().regex(/^-?[a-z0-9_]{1,64}$/, 'expected a check name, or "-" and a check name to opt out');
const toolPattern = z.string().min(1, 'expected a tool name (<server>__<tool>) or a pattern with *').max(256);

/** Tags a key may carry. */
export const MAX_TAGS = 32;

/** Field schemas, shared by the config file and the admin API. */
const fields = {
  models: z.array(pattern).min(1, 'give at least one model or pattern (leave models out to allow every model)').max(1024),
  requests_per_minute: positiveInt('requests'),
  tokens_per_minute: positiveInt('tokens'),
  budget: usdAmount,
  budget_period: z.enum(BUDGET_PERIODS, { error: `expected one of ${BUDGET_PERIODS.join(', ')}` }),
  expires_at: expiresAt,
  tags: z.record(tagName, tagValue).refine((t) => Object.keys(t).length <= MAX_TAGS, `at most ${MAX_TAGS} tags`),
  max_parallel_requests: positiveInt('requests'),
  // an empty list is allowed: it says "no MCP access" out loud
  mcp_tools: z.array(toolPattern).max(1024),
  tool_calls_per_minute: positiveInt('tool calls'),
  guardrails: z
    .array(guardrailEntry)
    .max(256)
    .refine((list) => new Set(list.map((entry) => entry.replace(/^-/, ''))).size === list.length, 'a check is named twice'),
};

/** Every setting, optional: the shape `[keys.<name>]` and `POST /v1/admin/keys` share. */
export const keySettingsShape = {
  models: fields.models.optional(),
  requests_per_minute: fields.requests_per_minute.optional(),
  tokens_per_minute: fields.tokens_per_minute.optional(),
  budget: fields.budget.optional(),
  budget_period: fields.budget_period.optional(),
  expires_at: fields.expires_at.optional(),
  tags: fields.tags.optional(),
  max_parallel_requests: fields.max_parallel_requests.optional(),
  mcp_tools: fields.mcp_tools.optional(),
  tool_calls_per_minute: fields.tool_calls_per_minute.optional(),
  guardrails: fields.guardrails.optional(),
};

/** A key's whole settings, however written (file, POST, merged PATCH, stored record). */
export const keySettingsSchema = z.strictObject(keySettingsShape);

/** `PATCH /v1/admin/keys/{name}`: a JSON merge patch (RFC 7396; `tags` merge tag by tag), the result checked whole. */
export const keyPatchSchema = z.strictObject({
  models: fields.models.nullable().optional(),
  requests_per_minute: fields.requests_per_minute.nullable().optional(),
  tokens_per_minute: fields.tokens_per_minute.nullable().optional(),
  budget: fields.budget.nullable().optional(),
  budget_period: fields.budget_period.nullable().optional(),
  expires_at: fields.expires_at.nullable().optional(),
  tags: z.record(tagName, tagValue.nullable()).nullable().optional(),
  max_parallel_requests: fields.max_parallel_requests.nullable().optional(),
  mcp_tools: fields.mcp_tools.nullable().optional(),
  tool_calls_per_minute: fields.tool_calls_per_minute.nullable().optional(),
  guardrails: fields.guardrails.nullable().optional(),
});
export type KeyPatch = z.output<typeof keyPatchSchema>;

/** `settings` with `patch` applied (RFC 7396 merge); the input is not changed. */
export function applyPatch(settings: KeySettings, patch: KeyPatch): KeySettings {
  const out: Record<string, unknown> = { ...settings };
  for (const name of KEY_SETTINGS) {
    const v = patch[name];
    if (v === undefined) continue;
    if (v === null) delete out[name];
    else if (name === 'tags') {
      const tags: Record<string, string> = { ...settings.tags };
      for (const [k, tv] of Object.entries(v as Record<string, string | null>)) {
        if (tv === null) delete tags[k];
        else tags[k] = tv;
      }
      if (Object.keys(tags).length) out.tags = tags;
      else delete out.tags;
    } else out[name] = v;
  }
  return settingsOf(out);
}

/** The settings part of a parsed `[keys.<name>]` entry or admin body (other fields dropped, unset ones absent). */
export function settingsOf(entry: Readonly<Record<string, unknown>>): KeySettings {
  const out: Record<string, unknown> = {};
  for (const name of KEY_SETTINGS) if (entry[name] !== undefined && entry[name] !== null) out[name] = entry[name];
  return out as KeySettings;
}

/** Settings extensions enforce, and the built-in one that does: set without it, gw warns that they change nothing. */
export const EXTENSION_SETTINGS: Readonly<Partial<Record<KeySettingName, string>>> = {
  requests_per_minute: 'rate_limit',
  tokens_per_minute: 'rate_limit',
  tool_calls_per_minute: 'rate_limit',
  budget: 'budget',
  budget_period: 'budget',
  guardrails: 'guardrails',
};

/** One warning per setting of key `name` that no enabled extension enforces. */
export function unenforcedSettings(name: string, s: KeySettings, honored: ReadonlySet<KeySettingName>): string[] {
  const out: string[] = [];
  for (const [setting, ext] of Object.entries(EXTENSION_SETTINGS) as Array<[KeySettingName, string]>) {
    if (s[setting] !== undefined && !honored.has(setting))
      out.push(`key '${name}' sets ${setting}, but no enabled extension enforces it: add [extensions.${ext}] to the config (then restart)`);
  }
  return out;
}
