/**
 * Gateway keys and the admin token: file keys as given, runtime keys as SHA-256 hashes; each
 * key's settings compiled into its KeyInfo when the table is built, a lookup one Map.get.
 */
import { hash, timingSafeEqual } from 'node:crypto';
import { type BudgetPeriod, type KeySettings, rfc3339 } from './key-settings.ts';
import { ALLOW_ALL, compileModelPatterns } from './model-glob.ts';

/** The key that authenticated a request and its settings (lib/key-settings.ts); never the secret or its hash. */
export interface KeyInfo {
  readonly name: string;
  /** `models` patterns as configured; undefined = every model. */
  readonly models?: readonly string[];
  /** Overrides `[extensions.rate_limit] requests_per_minute` for this key. */
  readonly requestsPerMinute?: number;
  /** Overrides `[extensions.rate_limit] tokens_per_minute` for this key. */
  readonly tokensPerMinute?: number;
  /** USD; overrides the budget extension's budget for this key. */
  readonly budget?: number;
  /** The budget's period; undefined = lifetime. */
  readonly budgetPeriod?: BudgetPeriod;
  /** `expires_at` as epoch ms; undefined = never. */
  readonly expiresAt?: number;
  readonly tags?: Readonly<Record<string, string>>;
  /** Requests in flight at once (across instances on a shared store); undefined = no cap. */
  readonly maxParallelRequests?: number;
  /** True when the key may call `model`, a canonical id (after alias resolution); always true without `models`. */
  allows(model: string): boolean;
  /** `mcp_tools` patterns as configured; undefined = no MCP access. */
  readonly mcpTools?: readonly string[];
  /** MCP tools/call per minute; overrides `[extensions.rate_limit] tool_calls_per_minute`. */
  readonly toolCallsPerMinute?: number;
  /**
   * True when the key may see and use the MCP tool, prompt or resource with this full name
   * (`<server>__<name>`, docs/mcp.md); always false without `mcp_tools`.
   */
  mcpAllows(name: string): boolean;
  /** `guardrails`: check names added to the key, `-name` opting it out of one; undefined = the checks' own scope. */
  readonly guardrails?: readonly string[];
}

/** SHA-256 hex of a secret. */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/** `[keys.<name>]`: the secret and its settings. */
export interface FileKeyEntry extends KeySettings {
  key: string;
}

/** A runtime key as stored (server/runtime/records.ts): never the secret. */
export interface RuntimeKeyRecord {
  /** SHA-256 hex of the current secret. */
  hash: string;
  /** The secret's first characters ({@link keyPrefix}), kept at creation and rotation to list the key by; absent on older records. */
  prefix?: string;
  /** ISO 8601 creation time; absent on records from before keys had settings. */
  created_at?: string;
  settings: KeySettings;
  /** Earlier secrets still accepted after a rotation with a grace period, each until `until` (RFC 3339). */
  grace?: Array<{ hash: string; until: string }>;
}

/** A key as listed by the admin API: never the secret; unset settings are null. */
export interface KeyListing {
  name: string;
  source: 'file' | 'runtime';
  /** The secret's first characters and `…` (`sk-AbCd1…`, {@link keyPrefix}); `…` alone when none was kept. */
  key: string;
  models: string[] | null;
  requests_per_minute: number | null;
  tokens_per_minute: number | null;
  budget: number | null;
  budget_period: KeySettings['budget_period'] | null;
  expires_at: string | null;
  /** True once `expires_at` has passed (the key then gets 401 `key_expired`). */
  expired: boolean;
  tags: Record<string, string> | null;
  max_parallel_requests: number | null;
  mcp_tools: string[] | null;
  tool_calls_per_minute: number | null;
  guardrails: string[] | null;
  /** Runtime keys: creation time. */
  created_at?: string;
  /** After a rotation with a grace period: until when the previous secret is still accepted. */
  previous_key_valid_until?: string;
}

/** A stored runtime key gw cannot load: listed with the reason, never dropped silently; its secret gets 401. */
export interface UnreadableKeyListing {
  name: string;
  source: 'runtime';
  key: null;
  unreadable: true;
  /** What is wrong with the record, in gw's words (never a value of it). */
  reason: string;
}

/** Characters of a secret a listing shows at most: a generated key's `sk-` and 5 of its 43 random characters. */
export const MAX_PREFIX = 8;

/** The first characters of `secret` listings show: 8, or a quarter of a shorter secret (a generated key keeps 228 bits unknown). */
export function keyPrefix(secret: string): string {
  return secret.slice(0, Math.min(MAX_PREFIX, Math.floor(secret.length / 4)));
}

/** The KeyInfo of a key: its settings compiled for the hot path (frozen; one shape for every key). */
export function keyInfo(name: string, s: KeySettings = {}): KeyInfo {
  return Object.freeze({
    name,
    models: s.models ? Object.freeze([...s.models]) : undefined,
    requestsPerMinute: s.requests_per_minute,
    tokensPerMinute: s.tokens_per_minute,
    budget: s.budget,
    budgetPeriod: s.budget_period,
    expiresAt: s.expires_at === undefined ? undefined : Date.parse(s.expires_at),
    tags: s.tags ? Object.freeze({ ...s.tags }) : undefined,
    maxParallelRequests: s.max_parallel_requests,
    allows: s.models ? compileModelPatterns(s.models) : ALLOW_ALL,
    mcpTools: s.mcp_tools ? Object.freeze([...s.mcp_tools]) : undefined,
    toolCallsPerMinute: s.tool_calls_per_minute,
    mcpAllows: s.mcp_tools ? compileModelPatterns(s.mcp_tools) : DENY_ALL,
    guardrails: s.guardrails ? Object.freeze([...s.guardrails]) : undefined,
  });
}

/** No MCP access: a key without `mcp_tools`. */
const DENY_ALL = (): boolean => false;

interface Entry {
  info: KeyInfo;
  source: 'file' | 'runtime';
  masked: string;
  settings: KeySettings;
  createdAt?: string;
  /** Latest `until` of the earlier secrets still accepted (epoch ms). */
  graceUntil?: number;
}

export class KeyTable {
  private readonly plain = new Map<string, KeyInfo>();
  private readonly hashed = new Map<string, KeyInfo>();
  /** Earlier secrets of rotated keys: hash → the key and until when (epoch ms). */
  private readonly grace = new Map<string, { info: KeyInfo; until: number }>();
  private readonly byName = new Map<string, Entry>();

  /**
   * @param file `[keys.<name>]` entries (secret and settings); @param runtime stored runtime
   *   keys by name (a name the file also defines is shadowed by the file).
   */
  constructor(file: Readonly<Record<string, FileKeyEntry>>, runtime: ReadonlyMap<string, RuntimeKeyRecord> = new Map()) {
    for (const [name, entry] of Object.entries(file)) {
      const { key, ...settings } = entry;
      const info = keyInfo(name, settings);
      this.plain.set(key, info);
      this.byName.set(name, { info, source: 'file', masked: `${keyPrefix(key)}…`, settings });
    }
    for (const [name, rec] of runtime) {
      if (this.byName.has(name)) continue;
      const info = keyInfo(name, rec.settings);
      this.hashed.set(rec.hash, info);
      let graceUntil: number | undefined;
      for (const g of rec.grace ?? []) {
        const until = Date.parse(g.until);
        this.grace.set(g.hash, { info, until });
        graceUntil = Math.max(graceUntil ?? 0, until);
      }
      this.byName.set(name, {
        info,
        source: 'runtime',
        masked: `${rec.prefix ?? ''}…`,
        settings: rec.settings,
        createdAt: rec.created_at,
        graceUntil,
      });
    }
  }

  /** True when no key is configured: the gateway runs open. */
  get open(): boolean {
    return this.plain.size === 0 && this.hashed.size === 0;
  }

  /** The key of a presented secret (a rotated key's old secret until its grace ends at `now`); expiry is the caller's to check. */
  lookup(secret: string, now: () => number = Date.now): KeyInfo | undefined {
    const p = this.plain.get(secret);
    if (p !== undefined || this.hashed.size === 0) return p;
    const h = hashSecret(secret);
    const k = this.hashed.get(h);
    if (k !== undefined || this.grace.size === 0) return k;
    const g = this.grace.get(h);
    return g !== undefined && now() < g.until ? g.info : undefined;
  }

  /** A key's info by name (what plugins may see of it), or undefined. */
  info(name: string): KeyInfo | undefined {
    return this.byName.get(name)?.info;
  }

  /** A key's settings as given (file or stored), or undefined. */
  settings(name: string): KeySettings | undefined {
    return this.byName.get(name)?.settings;
  }

  /** Every key, file ones first (file order), then runtime ones; `now` decides `expired`. */
  list(now: number = Date.now()): KeyListing[] {
    const out: KeyListing[] = [];
    for (const [name, e] of this.byName) {
      const s = e.settings;
      const l: KeyListing = {
        name,
        source: e.source,
        key: e.masked,
        models: s.models ? [...s.models] : null,
        requests_per_minute: s.requests_per_minute ?? null,
        tokens_per_minute: s.tokens_per_minute ?? null,
        budget: s.budget ?? null,
        budget_period: s.budget_period ?? null,
        expires_at: s.expires_at ?? null,
        expired: e.info.expiresAt !== undefined && now >= e.info.expiresAt,
        tags: s.tags ? { ...s.tags } : null,
        max_parallel_requests: s.max_parallel_requests ?? null,
        mcp_tools: s.mcp_tools ? [...s.mcp_tools] : null,
        tool_calls_per_minute: s.tool_calls_per_minute ?? null,
        guardrails: s.guardrails ? [...s.guardrails] : null,
      };
      if (e.createdAt) l.created_at = e.createdAt;
      if (e.graceUntil !== undefined && now < e.graceUntil) l.previous_key_valid_until = rfc3339(e.graceUntil);
      out.push(l);
    }
    return out;
  }

  names(): string[] {
    return [...this.byName.keys()];
  }
}

/** Constant-time comparison of a presented token with the expected one (hashes first so lengths match). */
export function tokenEquals(presented: string, expected: string): boolean {
  return timingSafeEqual(hash('sha256', presented, 'buffer'), hash('sha256', expected, 'buffer'));
}

/** `sk-abcd…wxyz` for secrets long enough to keep 8 characters hidden, else `***`. */
export function maskSecret(secret: string): string {
  if (secret.length < 16) return '***';
  return `${secret.slice(0, 6)}…${secret.slice(-4)}`;
}

/** The bearer token of an `Authorization` header (the scheme in any case, RFC 7235), or undefined. */
export function bearer(header: string | undefined): string | undefined {
  if (!header || header.length <= 7 || header.charCodeAt(6) !== 32 || header.slice(0, 6).toLowerCase() !== 'bearer') return undefined;
  return header.slice(7).trim() || undefined;
}
