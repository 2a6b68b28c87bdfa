/**
 * Parsing the virtual key flags of `gw keys create|update|rotate` (commander argument
 * parsers: a bad value is one clear line before anything is sent). Values the server
 * checks anyway (an expiry's calendar validity) are passed through for it to judge.
 */
import { InvalidArgumentError } from 'commander';

/** `--models 'gpt-4o*,claude-*'` → ['gpt-4o*', 'claude-*']. */
export function modelPatterns(v: string): string[] {
  const list = v
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean);
  if (list.length === 0) throw new InvalidArgumentError('expected comma-separated model ids or patterns, e.g. gpt-4o,claude-*');
  return list;
}

/** `--mcp-tools 'fs__*,github__search_*'` → the patterns; `--mcp-tools ''` → [] (no MCP tools, said out loud). */
export function toolPatterns(v: string): string[] {
  return v
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean);
}

/** `--guardrails 'pii_strict,-secrets'` → check names to add, `-name` to opt out; `--guardrails ''` → [] (the checks' own scope). */
export function guardrailNames(v: string): string[] {
  const list = toolPatterns(v);
  for (const name of list)
    if (!/^-?[a-z0-9_]{1,64}$/.test(name)) throw new InvalidArgumentError(`expected check names (or -name to opt out), comma-separated, got '${name}'`);
  return list;
}

/** A whole number >= 1 (`--rpm`, `--tpm`, `--max-parallel`). */
export function positiveInt(v: string): number {
  const n = Number(v);
  if (!/^\d+$/.test(v.trim()) || !Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError(`expected a whole number of at least 1, got '${v}'`);
  return n;
}

/** USD >= 0 (`--budget 20`, `--budget 0.5`). */
export function usdAmount(v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n < 0) throw new InvalidArgumentError(`expected an amount in USD (0 or more), got '${v}'`);
  return n;
}

export const PERIODS = ['daily', 'weekly', 'monthly', 'lifetime'] as const;

/** `--period monthly`. */
export function period(v: string): string {
  if (!(PERIODS as readonly string[]).includes(v)) throw new InvalidArgumentError(`expected one of ${PERIODS.join(', ')}, got '${v}'`);
  return v;
}

/**
 * `--tag team=search`, repeatable: collects into one map. `--tag team=` (no value) is
 * kept as null: `gw keys update` then removes that tag.
 */
export function tag(v: string, prev: Record<string, string | null> = {}): Record<string, string | null> {
  const i = v.indexOf('=');
  if (i <= 0) throw new InvalidArgumentError(`expected name=value, e.g. team=search, got '${v}'`);
  const name = v.slice(0, i).trim();
  const value = v.slice(i + 1).trim();
  return { ...prev, [name]: value === '' ? null : value };
}

/** Settings `--unset` may name, as flags or as the API's field names. */
const UNSETTABLE: Record<string, string> = {
  models: 'models',
  rpm: 'requests_per_minute',
  requests_per_minute: 'requests_per_minute',
  tpm: 'tokens_per_minute',
  tokens_per_minute: 'tokens_per_minute',
  budget: 'budget',
  period: 'budget_period',
  budget_period: 'budget_period',
  expires: 'expires_at',
  expires_at: 'expires_at',
  tags: 'tags',
  'max-parallel': 'max_parallel_requests',
  max_parallel_requests: 'max_parallel_requests',
  'mcp-tools': 'mcp_tools',
  mcp_tools: 'mcp_tools',
  'tool-calls': 'tool_calls_per_minute',
  tool_calls_per_minute: 'tool_calls_per_minute',
  guardrails: 'guardrails',
};

/** `--unset budget,expires` → the API fields to clear. */
export function unsetList(v: string): string[] {
  const out: string[] = [];
  for (const name of v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const field = UNSETTABLE[name];
    if (!field)
      throw new InvalidArgumentError(
        `cannot unset '${name}': expected any of models, rpm, tpm, budget, period, expires, tags, max-parallel, mcp-tools, tool-calls, guardrails`,
      );
    out.push(field);
  }
  if (out.length === 0) throw new InvalidArgumentError('expected comma-separated settings, e.g. budget,expires');
  return out;
}

/** `--grace 90`, `90s`, `15m`, `2h`, `1d` → seconds. */
export function duration(v: string): number {
  const m = /^(\d+)\s*(s|m|h|d)?$/.exec(v.trim());
  if (!m) throw new InvalidArgumentError(`expected a duration like 90, 90s, 15m, 2h or 1d, got '${v}'`);
  return Number(m[1]) * { s: 1, m: 60, h: 3600, d: 86_400 }[(m[2] ?? 's') as 's' | 'm' | 'h' | 'd'];
}
