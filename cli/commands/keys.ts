/**
 * `gw keys list|create|update|rotate|revoke`: the admin API's /v1/admin/keys. A new or
 * rotated secret is printed alone on stdout (so `KEY=$(gw keys create ci)` works); what a
 * person should read goes to stderr.
 */
import type { KeyListing } from '../../lib/keys.ts';
import { CliError } from '../client/errors.ts';
import { adminClient } from '../client/http.ts';
import { note, printJson, printList, type Column } from '../client/output.ts';

/** A key as GET /v1/admin/keys lists it (lib/keys.ts), or a stored record gw cannot load: `key` null, `unreadable` and why. */
type KeyRow = Omit<KeyListing, 'key' | 'source'> & { source: string; key: string | null; unreadable?: true; reason?: string; warnings?: string[] };

const COLUMNS: ReadonlyArray<Column<KeyRow>> = [
  { header: 'NAME', value: (k) => k.name },
  { header: 'SOURCE', value: (k) => k.source },
  { header: 'KEY', value: (k) => (k.unreadable ? 'unreadable' : k.key) },
  { header: 'MODELS', value: (k) => (k.unreadable ? null : (k.models ?? 'all')) },
  { header: 'RPM', value: (k) => k.requests_per_minute, right: true },
  { header: 'TPM', value: (k) => k.tokens_per_minute, right: true },
  { header: 'BUDGET', value: (k) => k.budget, right: true },
  { header: 'PERIOD', value: (k) => k.budget_period },
  { header: 'EXPIRES', value: (k) => (k.expires_at && k.expired ? `${k.expires_at} (expired)` : k.expires_at) },
  { header: 'TAGS', value: (k) => (k.tags ? Object.entries(k.tags).map(([n, v]) => `${n}=${v}`) : null) },
  { header: 'PARALLEL', value: (k) => k.max_parallel_requests, right: true },
  { header: 'MCP_TOOLS', value: (k) => (k.mcp_tools === null ? 'none' : k.mcp_tools.length ? k.mcp_tools : 'none') },
  { header: 'TOOL_CALLS', value: (k) => k.tool_calls_per_minute, right: true },
  { header: 'GUARDRAILS', value: (k) => (k.guardrails?.length ? k.guardrails : null) },
];

/** The flags of `create` and `update`, as commander parsed them. */
interface SettingFlags {
  models?: string[];
  rpm?: number;
  tpm?: number;
  budget?: number;
  period?: string;
  expires?: string;
  tag?: Record<string, string | null>;
  maxParallel?: number;
  mcpTools?: string[];
  toolCalls?: number;
  guardrails?: string[];
  unset?: string[];
  json?: boolean;
}

/** The API body fields the flags give (`update`: `--unset` ones as null, `--tag name=` as a null tag). */
function settingsBody(o: SettingFlags): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const field of o.unset ?? []) body[field] = null;
  if (o.models !== undefined) body.models = o.models;
  if (o.rpm !== undefined) body.requests_per_minute = o.rpm;
  if (o.tpm !== undefined) body.tokens_per_minute = o.tpm;
  if (o.budget !== undefined) body.budget = o.budget;
  if (o.period !== undefined) body.budget_period = o.period;
  if (o.expires !== undefined) body.expires_at = o.expires;
  if (o.tag !== undefined) body.tags = o.tag;
  if (o.maxParallel !== undefined) body.max_parallel_requests = o.maxParallel;
  if (o.mcpTools !== undefined) body.mcp_tools = o.mcpTools;
  if (o.toolCalls !== undefined) body.tool_calls_per_minute = o.toolCalls;
  if (o.guardrails !== undefined) body.guardrails = o.guardrails;
  return body;
}

const path = (name: string) => `/v1/admin/keys/${encodeURIComponent(name)}`;

export async function list(o: { json?: boolean }): Promise<void> {
  const res = await adminClient().call<{ data: KeyRow[] }>('GET', '/v1/admin/keys');
  printList(o.json === true, res.data, COLUMNS, res.data);
  if (o.json) return;
  for (const k of res.data)
    if (k.unreadable) note(`gw: key '${k.name}' is stored but cannot be loaded (${k.reason}): revoke it (gw keys revoke ${k.name}) and create it again`);
}

/** Prints the new key alone on stdout; the note (and any warning) goes to stderr. */
export async function create(name: string, o: SettingFlags): Promise<void> {
  const k = await adminClient().call<KeyRow>('POST', '/v1/admin/keys', { body: { name, ...settingsBody(o) } });
  if (o.json) return printJson(k);
  process.stdout.write(`${k.key}\n`);
  note(`created key '${k.name}': store it now, gw keeps only its hash and cannot show it again`);
  for (const w of k.warnings ?? []) note(`warning: ${w}`);
}

/** Prints the key's row as `gw keys list` would (or its JSON). */
export async function update(name: string, o: SettingFlags): Promise<void> {
  const body = settingsBody(o);
  if (Object.keys(body).length === 0) {
    throw new CliError(
      'nothing to change: give a setting (--models, --rpm, --tpm, --budget, --period, --expires, --tag, --max-parallel, --mcp-tools, --tool-calls, --guardrails) or --unset',
    );
  }
  const k = await adminClient().call<KeyRow>('PATCH', path(name), { body });
  if (o.json) return printJson(k);
  printList(false, k, COLUMNS, [k]);
  for (const w of k.warnings ?? []) note(`warning: ${w}`);
}

/** Prints the new key alone on stdout; when the old one stops goes to stderr. */
export async function rotate(name: string, o: { grace?: number; json?: boolean }): Promise<void> {
  const body = o.grace === undefined ? undefined : { grace_seconds: o.grace };
  const k = await adminClient().call<{ name: string; key: string; previous_key_valid_until: string | null }>('POST', `${path(name)}/rotate`, { body });
  if (o.json) return printJson(k);
  process.stdout.write(`${k.key}\n`);
  note(
    `rotated key '${k.name}': store the new key now; ${k.previous_key_valid_until ? `the previous one keeps working until ${k.previous_key_valid_until}` : 'the previous one no longer works'}`,
  );
}

export async function revoke(name: string, o: { json?: boolean }): Promise<void> {
  await adminClient().call('DELETE', path(name));
  if (o.json) return printJson({ name, revoked: true });
  process.stdout.write(`revoked key ${name}\n`);
}
