/**
 * Runtime changes to a running gateway: providers and keys created or removed through the
 * admin API, config reloads, and (on a shared store) the changes other instances made.
 * Every admin change and every reload runs one skeleton, `change`: under the store lock
 * `admin:changes`, check, store, apply, tell the other instances. Every change of state
 * (theirs too) goes through one step, `apply`: build what changed, `reconcile` a new
 * snapshot (snapshot.ts), swap it in with one assignment. A request in flight keeps the
 * snapshot it started with; the next request sees the change.
 *
 * Several instances on one shared store (Redis) see each other's changes by polling: every
 * change bumps the counter `admin:version`; each instance reads it every second
 * (POLL_MS) and, when it moved, re-reads the stored providers and keys and applies them,
 * so a change reaches every instance within about 1 s (2 s at most, docs/design.md "Store and
 * processes"). A full re-read every 30 s covers a lost bump. A store that only one process
 * opens (LevelDB: its plugin is not `shared`) is not polled.
 */
import { ConfigError } from '../../lib/config/error.ts';
import { generateSecret } from '../config/first-run.ts';
import { loadConfig } from '../config/load.ts';
import type { GatewayConfig } from '../../lib/config/schema.ts';
import {
  DEFINED_IN_FILE,
  INVALID_PROVIDER,
  KEY_EXISTS,
  KEY_IN_FILE,
  KEY_NOT_FOUND,
  MODELS_REQUIRED,
  PROVIDER_EXISTS,
  PROVIDER_NOT_FOUND,
  RECORD_UNREADABLE,
} from '../errors.ts';
import { DISCOVERY_FAILED } from '../../lib/http/errors.ts';
import { GatewayError } from '../../core/errors.ts';
import {
  applyPatch,
  type KeyPatch,
  type KeySettingName,
  type KeySettings,
  keySettingsSchema,
  rfc3339,
  settingsOf,
  unenforcedSettings,
} from '../../lib/key-settings.ts';
import { parseBody } from '../../lib/schemas.ts';
import { hashSecret, type KeyListing, keyPrefix, type RuntimeKeyRecord, type UnreadableKeyListing } from '../../lib/keys.ts';
import { buildProvider, type ProviderDeps } from '../build-provider.ts';
import { PluginError } from '../../core/plugins/loader.ts';
import type { Provider } from '../../lib/provider.ts';
import type { MemberPool } from '../../lib/resilience/member.ts';
import type { Store } from '../../lib/store/types.ts';
import { providerListing, type ProviderListing, unreadableProvider, type UnreadableProviderListing } from './listing.ts';
import { SecretRedactor } from '../../lib/redact.ts';
import { RuntimeRecords, type ProviderRecord } from './records.ts';
import { applyReloadable } from './restart-only.ts';
import { reconcile, type BuiltProvider, type Snapshot } from '../../core/snapshot.ts';
import type { PriceTable } from '../../lib/pricing/book.ts';

/** What `POST /v1/admin/providers` accepts (validated by the admin route). */
export interface ProviderInput {
  name: string;
  api_key: string;
  kind?: string;
  base_url?: string;
  /** Absent or empty → discovered from the upstream's model list. */
  models?: string[];
  /** Any other field of the kind's section (timeout_seconds, api_version…), checked by its plugin. */
  [field: string]: unknown;
}

/** What `POST /v1/admin/keys` accepts (validated and normalized by the admin route). */
export interface KeyInput extends KeySettings {
  name: string;
}

/** A key created at runtime: its listing, with the secret in `key` (the only time it is shown). */
export interface CreatedKey extends Omit<KeyListing, 'key'> {
  key: string;
  /** Settings no enabled extension enforces (absent when none). */
  warnings?: string[];
}

/** A key just rotated: the new secret, shown once. */
export interface RotatedKey {
  name: string;
  source: 'runtime';
  key: string;
  /** Until when the previous secret is still accepted (RFC 3339); null: it stopped at once. */
  previous_key_valid_until: string | null;
}

/** The outcome of a reload. */
export interface ReloadReport {
  file: string;
  providers: number;
  models: number;
  keys: number;
  /** Settings kept until a restart, shadowed runtime entries, providers that failed to build. */
  warnings: string[];
}

/** What the runtime needs from the gateway it runs: its deps, and where the snapshot lives. */
export interface RuntimeHost extends ProviderDeps {
  store: Store;
  /** Other gw instances may share the store (StorePlugin.shared): their changes are polled. */
  sharedStore: boolean;
  members: MemberPool;
  /** The current snapshot. */
  readonly snapshot: Snapshot;
  /** Installs a new snapshot (one assignment). */
  swap(next: Snapshot): void;
  /** The gateway's clock, epoch ms. */
  now(): number;
  /** Key settings the enabled extensions enforce; undefined until they are set up. */
  honoredKeySettings(): ReadonlySet<KeySettingName> | undefined;
  /** The bundled price table the host loaded, if any (lib/pricing/book.ts). */
  readonly priceTable?: PriceTable;
}

/** How often an instance on a shared store checks `admin:version`. */
export const POLL_MS = 1000;
/** Re-read the records this often even when the version did not move. */
const RESYNC_MS = 30_000;

/** How runtime-built providers are named in their ConfigErrors. */
const RUNTIME_LABEL = 'runtime provider';

/** The inputs of the next snapshot; `apply` reads what is not given from the current state. */
interface Change {
  config?: GatewayConfig;
  stored?: Map<string, ProviderRecord>;
  keyRecords?: Map<string, RuntimeKeyRecord>;
  /** Providers already built for these stored records (admin create). */
  prebuilt?: Map<string, BuiltProvider>;
  /** Stored records that cannot be read, by name, with the reason. */
  unreadable?: Unreadable;
}

/** Stored runtime records gw cannot read (by name → the reason): listed, reported, deletable, never dropped silently. */
interface Unreadable {
  providers: Map<string, string>;
  keys: Map<string, string>;
}

/**
 * Commits a checked change, once, inside `change`: `save` writes it to the store, then the
 * next snapshot is applied and the other instances are told. Resolves with the warnings of
 * applying it.
 */
type Commit = (next: Change, save?: () => Promise<void>) => Promise<string[]>;

export class Runtime {
  private readonly host: RuntimeHost;
  private readonly records: RuntimeRecords;
  /** File providers as built, config order. */
  private file = new Map<string, BuiltProvider>();
  /** Every stored runtime provider record, built or not. */
  private stored = new Map<string, ProviderRecord>();
  /** Built runtime providers: stored ones not shadowed by a file provider. */
  private runtime = new Map<string, BuiltProvider>();
  private keyRecords = new Map<string, RuntimeKeyRecord>();
  private unreadable: Unreadable = { providers: new Map(), keys: new Map() };
  /** Stored runtime providers that failed to build, with the reason (their records are in `stored`). */
  private unbuilt = new Map<string, string>();
  /** Providers swapped out while requests may still use them; closed with the gateway. */
  private readonly retired: Provider[] = [];
  /** `admin:version` as of the records this instance has applied. */
  private seen = 0;
  private version = 0;
  private poller: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private lastSync = 0;

  constructor(host: RuntimeHost) {
    this.host = host;
    this.records = new RuntimeRecords(host.store);
  }

  private get config(): GatewayConfig {
    return this.host.snapshot.config;
  }

  /**
   * Builds the first snapshot: the file's providers (a failure is a ConfigError, startup
   * stops) and the store's runtime providers and keys (a failure skips one with a warning).
   * On a shared store, starts polling for other instances' changes.
   */
  async start(config: GatewayConfig): Promise<Snapshot> {
    // read before the records: a change stored in between is then seen as a new version
    const version = this.host.sharedStore ? await this.records.version() : undefined;
    const { stored, keyRecords, unreadable } = await this.readRecords();
    this.reportUnreadable(unreadable);
    const warnings = await this.apply({ config, stored, keyRecords, unreadable });
    for (const w of warnings) this.host.log.warn(w);
    if (version !== undefined) this.startPolling(version);
    return this.host.snapshot;
  }

  /**
   * File providers (config order) then runtime ones (name order), secrets masked; a stored
   * runtime provider that cannot be read or built is listed too, marked `unreadable` with the reason.
   */
  listProviders(): Array<ProviderListing | UnreadableProviderListing> {
    const out: Array<ProviderListing | UnreadableProviderListing> = [];
    const members = this.host.members;
    for (const b of this.file.values()) out.push(providerListing(b.provider, b.section, 'file', members.get(b.provider)));
    const names = new Set([...this.runtime.keys(), ...this.unbuilt.keys(), ...this.unreadable.providers.keys()]);
    for (const name of [...names].sort()) {
      const b = this.runtime.get(name);
      if (b) out.push(providerListing(b.provider, b.section, 'runtime', members.get(b.provider)));
      else if (!this.file.has(name))
        out.push(unreadableProvider(name, this.stored.get(name)?.section, this.unbuilt.get(name) ?? this.unreadable.providers.get(name)!));
    }
    return out;
  }

  /**
   * Validates, builds (discovering models when none are given), stores and routes a provider.
   * @throws GatewayError 409 name taken, 400 invalid section or unknown kind,
   *   502/504 discovery failed (message names the URL and the status).
   */
  createProvider(input: ProviderInput): Promise<ProviderListing> {
    return this.change(async (commit) => {
      const { name, ...fields } = input;
      if (this.file.has(name)) throw PROVIDER_EXISTS({ name, where: `defined in the config file ${this.config.file}` });
      if (this.stored.has(name)) throw PROVIDER_EXISTS({ name, where: 'created at runtime' });
      const unreadable = this.unreadable.providers.get(name);
      if (unreadable !== undefined) throw RECORD_UNREADABLE({ what: 'provider', name, reason: unreadable, action: 'create a provider of that name' });
      const section: Record<string, unknown> = { ...fields, kind: fields.kind ?? name };
      if (!Array.isArray(section.models) || section.models.length === 0) delete section.models;
      let built: BuiltProvider;
      try {
        built = await buildProvider(name, section, RUNTIME_LABEL, this.host, { discovery: 'throw' });
      } catch (err) {
        throw createError(name, err);
      }
      const p = built.provider;
      if (p.models.length === 0) {
        await p.close?.().catch(() => undefined);
        throw p.listModels
          ? DISCOVERY_FAILED(`cannot create provider '${name}': the upstream's model list is empty; give models`, { param: 'models' })
          : MODELS_REQUIRED({ name, why: `kind '${String(section.kind)}' cannot list its models` });
      }
      const record: ProviderRecord = { name, created_at: new Date().toISOString(), section: { ...section, models: [...p.models] } };
      const stored = new Map(this.stored).set(name, record);
      const prebuilt = new Map([[name, { ...built, section: record.section, json: JSON.stringify(record.section) }]]);
      await commit({ stored, prebuilt }, () => this.records.putProvider(record));
      this.host.log.info({ provider: name, kind: p.kind, models: p.models.length }, 'provider created');
      return providerListing(p, record.section, 'runtime', this.host.members.get(p));
    });
  }

  /**
   * Removes a runtime provider; requests in flight on it finish.
   * @throws GatewayError 409 when the config file defines it, 404 when unknown.
   */
  deleteProvider(name: string): Promise<void> {
    return this.change(async (commit) => {
      if (this.file.has(name)) throw DEFINED_IN_FILE({ what: 'provider', name, file: this.config.file });
      if (this.unreadable.providers.has(name)) {
        await commit({ unreadable: this.without('providers', name) }, () => this.records.deleteProvider(name));
        this.host.log.info({ provider: name }, 'unreadable provider record deleted');
        return;
      }
      if (!this.stored.has(name)) throw PROVIDER_NOT_FOUND(name);
      const stored = new Map(this.stored);
      stored.delete(name);
      await commit({ stored }, () => this.records.deleteProvider(name));
      this.host.log.info({ provider: name }, 'provider deleted');
    });
  }

  /**
   * Every gateway key, file and runtime, masked, with its settings; then every stored runtime
   * key that cannot be loaded (name order), marked `unreadable` with the reason.
   */
  listKeys(): Array<KeyListing | UnreadableKeyListing> {
    const out: Array<KeyListing | UnreadableKeyListing> = this.host.snapshot.keys.list(this.host.now());
    for (const name of [...this.unreadable.keys.keys()].sort()) {
      if (!Object.hasOwn(this.config.keys, name)) out.push({ name, source: 'runtime', key: null, unreadable: true, reason: this.unreadable.keys.get(name)! });
    }
    return out;
  }

  /**
   * Settings of the running keys (or of key `name`) that no enabled extension enforces,
   * one warning each: such a setting is stored and listed but changes nothing.
   */
  keyWarnings(name?: string): string[] {
    const honored = this.host.honoredKeySettings();
    if (!honored) return [];
    const keys = this.host.snapshot.keys;
    const out: string[] = [];
    for (const n of name === undefined ? keys.names() : [name]) {
      const s = keys.settings(n);
      if (s) for (const w of unenforcedSettings(n, s, honored)) out.push(w);
    }
    return out;
  }

  /**
   * Creates a gateway key (first-run format) with its settings; only its SHA-256 is stored.
   * @throws GatewayError 409 when the name is taken.
   */
  createKey(input: KeyInput): Promise<CreatedKey> {
    return this.change(async (commit) => {
      const { name, ...given } = input;
      if (Object.hasOwn(this.config.keys, name) || this.keyRecords.has(name)) throw KEY_EXISTS(name);
      const unreadable = this.unreadable.keys.get(name);
      if (unreadable !== undefined) throw RECORD_UNREADABLE({ what: 'key', name, reason: unreadable, action: 'create a key of that name' });
      const key = generateSecret();
      const rec: RuntimeKeyRecord = {
        hash: hashSecret(key),
        prefix: keyPrefix(key),
        created_at: new Date(this.host.now()).toISOString(),
        settings: settingsOf(given),
      };
      await this.putKey(commit, name, rec);
      this.host.log.info({ keyName: name }, 'key created');
      return { ...this.listing(name), key, ...this.warned(name) };
    });
  }

  /**
   * Changes a runtime key's settings (a JSON merge patch); the secret stays.
   * @throws GatewayError 409 when the config file defines it, 404 when unknown.
   */
  updateKey(name: string, patch: KeyPatch): Promise<KeyListing & { warnings?: string[] }> {
    return this.change(async (commit) => {
      const rec = this.runtimeKey(name, 'change its settings');
      // the key as it would be stored passes the schema every other write passes
      const settings = settingsOf(parseBody(keySettingsSchema, applyPatch(rec.settings, patch)));
      await this.putKey(commit, name, { ...rec, settings });
      this.host.log.info({ keyName: name, fields: Object.keys(patch) }, 'key updated');
      return { ...this.listing(name), ...this.warned(name) };
    });
  }

  /**
   * Gives a runtime key a new secret. The previous one stops at once, or is still accepted
   * for `graceSeconds` (earlier secrets still in their grace period keep theirs; a rotation
   * without grace ends them all).
   * @throws GatewayError 409 when the config file defines it, 404 when unknown.
   */
  rotateKey(name: string, graceSeconds = 0): Promise<RotatedKey> {
    return this.change(async (commit) => {
      const rec = this.runtimeKey(name, 'rotate it');
      const now = this.host.now();
      const key = generateSecret();
      const until = graceSeconds > 0 ? rfc3339(now + graceSeconds * 1000) : null;
      const grace = until === null ? [] : [...(rec.grace ?? []).filter((g) => Date.parse(g.until) > now), { hash: rec.hash, until }];
      const next: RuntimeKeyRecord = {
        hash: hashSecret(key),
        prefix: keyPrefix(key),
        ...(rec.created_at ? { created_at: rec.created_at } : {}),
        settings: rec.settings,
        ...(grace.length ? { grace } : {}),
      };
      await this.putKey(commit, name, next);
      this.host.log.info({ keyName: name, graceSeconds }, 'key rotated');
      return { name, source: 'runtime', key, previous_key_valid_until: until };
    });
  }

  /**
   * Revokes a runtime key; the next request presenting it gets 401.
   * @throws GatewayError 409 when the config file defines it, 404 when unknown.
   */
  revokeKey(name: string): Promise<void> {
    return this.change(async (commit) => {
      if (Object.hasOwn(this.config.keys, name)) throw DEFINED_IN_FILE({ what: 'key', name, file: this.config.file });
      if (this.unreadable.keys.has(name)) {
        await commit({ unreadable: this.without('keys', name) }, () => this.records.deleteKey(name));
        this.host.log.info({ keyName: name }, 'unreadable key record deleted');
        return;
      }
      if (!this.keyRecords.has(name)) throw KEY_NOT_FOUND(name);
      const keyRecords = new Map(this.keyRecords);
      keyRecords.delete(name);
      await commit({ keyRecords }, () => this.records.deleteKey(name));
      this.host.log.info({ keyName: name }, 'key revoked');
    });
  }

  /** The stored record of runtime key `name`; `action` words the 409 for a file key. */
  private runtimeKey(name: string, action: string): RuntimeKeyRecord {
    if (Object.hasOwn(this.config.keys, name)) throw KEY_IN_FILE({ name, file: this.config.file, action });
    const unreadable = this.unreadable.keys.get(name);
    if (unreadable !== undefined) throw RECORD_UNREADABLE({ what: 'key', name, reason: unreadable, action });
    const rec = this.keyRecords.get(name);
    if (!rec) throw KEY_NOT_FOUND(name);
    return rec;
  }

  /** Commits runtime key `name` as `rec`: stored, then in the next snapshot. */
  private putKey(commit: Commit, name: string, rec: RuntimeKeyRecord): Promise<string[]> {
    return commit({ keyRecords: new Map(this.keyRecords).set(name, rec) }, () => this.records.putKey(name, rec));
  }

  private listing(name: string): KeyListing {
    return this.host.snapshot.keys.list(this.host.now()).find((k) => k.name === name)!;
  }

  /** The unreadable records without `name` among `what`. */
  private without(what: keyof Unreadable, name: string): Unreadable {
    const next = new Map(this.unreadable[what]);
    next.delete(name);
    return { ...this.unreadable, [what]: next };
  }

  /** Warns once about each stored record that cannot be read and was not reported yet (at start, and as other instances write them). */
  private reportUnreadable(next: Unreadable): void {
    for (const [name, reason] of next.keys) {
      if (this.unreadable.keys.get(name) === reason) continue;
      this.host.log.warn(
        { keyName: name, reason },
        `runtime key '${name}' is stored but cannot be loaded (${reason}): its secret gets 401 until it is deleted (gw keys revoke ${name}) and created again`,
      );
    }
    for (const [name, reason] of next.providers) {
      if (this.unreadable.providers.get(name) === reason) continue;
      this.host.log.warn(
        { provider: name, reason },
        `runtime provider '${name}' is stored but cannot be loaded (${reason}): it serves nothing until it is deleted (gw providers delete ${name}) and created again`,
      );
    }
  }

  /** `{warnings}` for key `name` when some of its settings are not enforced (logged too), else {}. */
  private warned(name: string): { warnings?: string[] } {
    const warnings = this.keyWarnings(name);
    for (const w of warnings) this.host.log.warn(w);
    return warnings.length ? { warnings } : {};
  }

  /**
   * Re-reads the config file and applies providers, aliases, keys, pricing, routing and
   * fallbacks. Unchanged provider sections keep their provider; restart-only settings keep
   * their running values (see restart-only.ts).
   * @throws ConfigError (file, key path, what was expected); the running config is kept.
   */
  reload(): Promise<ReloadReport> {
    return this.change(
      async (commit) => {
        const log = this.host.log;
        const running = this.config;
        const { config, warnings } = applyReloadable(running, await loadConfig(running.file));
        for (const w of await commit({ config })) warnings.push(w);
        for (const w of this.keyWarnings()) warnings.push(w);
        for (const w of warnings) log.warn(w);
        const snap = this.host.snapshot;
        const report = {
          file: config.file,
          providers: snap.table.providers.size,
          models: snap.table.models().length,
          keys: snap.keys.names().length,
          warnings,
        };
        log.info({ file: report.file, providers: report.providers, models: report.models, keys: report.keys }, 'config reloaded');
        return report;
      },
      { local: true },
    );
  }

  /**
   * The skeleton of every runtime change: take the admin lock (the store lock
   * `admin:changes`, which every instance on a shared store takes) → catch up with what other
   * instances stored → `fn` checks the change against the state now (a refusal throws:
   * nothing is stored or swapped) and commits it once: store it, apply it (build what
   * changed, reconcile a snapshot, swap it in), tell the other instances → `fn` logs and
   * answers. `local` (a reload of this instance's own config file) neither catches up nor
   * tells.
   * @throws what `fn` throws; a second commit is a bug (Error).
   */
  private change<T>(fn: (commit: Commit) => Promise<T>, opts: { local?: boolean } = {}): Promise<T> {
    return this.records.exclusive(async () => {
      if (!opts.local) await this.catchUp();
      let committed = false;
      return fn(async (next, save) => {
        if (committed) throw new Error('a runtime change commits once');
        committed = true;
        await save?.();
        const warnings = await this.apply(next);
        if (!opts.local) await this.announce();
        return warnings;
      });
    });
  }

  /**
   * The one way state changes: builds the providers whose section or record changed
   * (reusing every unchanged one, so its breaker and statistics live on), reconciles a new
   * snapshot and swaps it in, then retires the providers nothing routes to any more.
   * @returns warnings: shadowed runtime entries, runtime providers that failed to build.
   * @throws ConfigError when a file provider fails to build (nothing changes then).
   */
  private async apply(change: Change): Promise<string[]> {
    const config = change.config ?? this.config;
    const stored = change.stored ?? this.stored;
    const keyRecords = change.keyRecords ?? this.keyRecords;
    const warnings: string[] = [];
    const fresh: Provider[] = [];
    const file = new Map<string, BuiltProvider>();
    try {
      for (const [name, s] of Object.entries(config.providers)) {
        const section = s as Record<string, unknown>;
        const prev = this.file.get(name);
        if (prev && prev.json === JSON.stringify(section)) {
          file.set(name, prev);
          continue;
        }
        const b = await buildProvider(name, section, config.file, this.host);
        fresh.push(b.provider);
        file.set(name, b);
      }
    } catch (err) {
      for (const p of fresh) await p.close?.().catch(() => undefined);
      throw err;
    }
    const runtime = new Map<string, BuiltProvider>();
    const unbuilt = new Map<string, string>();
    for (const name of [...stored.keys()].sort()) {
      const rec = stored.get(name)!;
      if (file.has(name)) {
        warnings.push(`runtime provider '${name}' is shadowed by [providers.${name}] in the config file`);
        continue;
      }
      const json = JSON.stringify(rec.section);
      const prev = this.runtime.get(name);
      if (prev && prev.json === json) {
        runtime.set(name, prev);
        continue;
      }
      const pre = change.prebuilt?.get(name);
      if (pre) {
        runtime.set(name, pre);
        continue;
      }
      try {
        runtime.set(name, await buildProvider(name, rec.section, RUNTIME_LABEL, this.host));
      } catch (err) {
        // an error of the kind's setup may quote its section: never its api_key
        const reason = new SecretRedactor([rec.section.api_key as string]).redact((err as Error).message);
        // a known failure is warned about once (at start, or when the record changes), not at every re-read
        if (this.unbuilt.get(name) !== reason)
          warnings.push(
            `runtime provider '${name}' cannot be built and serves nothing: ${reason}; delete it (gw providers delete ${name}) and create it again`,
          );
        unbuilt.set(name, reason);
      }
    }
    for (const name of keyRecords.keys()) {
      if (Object.hasOwn(config.keys, name)) warnings.push(`runtime key '${name}' is shadowed by [keys.${name}] in the config file`);
    }
    const before = new Set<Provider>([...this.file.values(), ...this.runtime.values()].map((b) => b.provider));
    const snap = reconcile({ config, file, runtime, keyRecords, members: this.host.members, version: ++this.version, priceTable: this.host.priceTable });
    this.file = file;
    this.runtime = runtime;
    this.stored = stored;
    this.keyRecords = keyRecords;
    this.unbuilt = unbuilt;
    if (change.unreadable) this.unreadable = change.unreadable;
    this.host.swap(snap);
    for (const b of [...file.values(), ...runtime.values()]) before.delete(b.provider);
    for (const p of before) this.retired.push(p);
    return warnings;
  }

  /** The stored provider records and key hashes as they are now, and the records that cannot be read. */
  private async readRecords(): Promise<{ stored: Map<string, ProviderRecord>; keyRecords: Map<string, RuntimeKeyRecord>; unreadable: Unreadable }> {
    const unreadable: Unreadable = { providers: new Map(), keys: new Map() };
    const stored = new Map<string, ProviderRecord>();
    for (const rec of await this.records.providers((name, reason) => unreadable.providers.set(name, reason))) stored.set(rec.name, rec);
    const keyRecords = await this.records.keys((name, reason) => unreadable.keys.set(name, reason));
    return { stored, keyRecords, unreadable };
  }

  /**
   * Tells the other instances a change was stored (bumps `admin:version`). When the bump
   * skips a number, another instance changed something this one has not applied: the
   * version is left for the poller to notice. A failed bump is logged; the 30 s re-read
   * still spreads the change.
   */
  private async announce(): Promise<void> {
    try {
      const n = await this.records.bump();
      if (n === this.seen + 1) this.seen = n;
    } catch (err) {
      this.host.log.warn({ err: (err as Error).message }, 'could not announce a runtime change to other instances; they pick it up within 30 s');
    }
  }

  /**
   * On a shared store, applies changes other instances stored since the last poll; called
   * under the admin lock before a change checks names, so a name another instance took a
   * moment ago is a 409 here too (not silently overwritten). Re-reads even when the version
   * did not move: a bump lost with the connection must not let a name be taken twice.
   */
  private async catchUp(): Promise<void> {
    if (!this.poller) return;
    const v = await this.records.version();
    await this.sync();
    this.seen = v;
    this.lastSync = Date.now();
  }

  /** Starts checking `admin:version` every POLL_MS (shared stores only); `seen`: the version read before the records. */
  private startPolling(seen: number): void {
    this.seen = seen;
    this.lastSync = Date.now();
    this.poller = setInterval(() => {
      this.polling ??= this.poll().finally(() => {
        this.polling = undefined;
      });
    }, POLL_MS);
    this.poller.unref();
  }

  private async poll(): Promise<void> {
    try {
      const v = await this.records.version();
      if (v === this.seen && Date.now() - this.lastSync < RESYNC_MS) return;
      await this.records.exclusive(() => this.sync());
      this.seen = v;
      this.lastSync = Date.now();
    } catch (err) {
      // the store is away: keep the snapshot we have, try again next tick
      this.host.log.debug({ err: (err as Error).message }, 'runtime poll failed');
    }
  }

  /** Applies the stored providers and keys as they are now, when anything changed. */
  private async sync(): Promise<void> {
    const { stored, keyRecords, unreadable } = await this.readRecords();
    if (sameRecords(stored, this.stored) && sameKeys(keyRecords, this.keyRecords) && sameUnreadable(unreadable, this.unreadable)) return;
    this.reportUnreadable(unreadable);
    const warnings = await this.apply({ stored, keyRecords, unreadable });
    for (const w of warnings) this.host.log.warn(w);
    this.host.log.info({ providers: this.runtime.size, keys: this.keyRecords.size }, 'runtime providers and keys updated from the shared store');
  }

  /** Stops polling; closes providers that were swapped out. */
  async close(): Promise<void> {
    if (this.poller) clearInterval(this.poller);
    await this.polling;
    for (const p of this.retired.splice(0)) {
      this.host.members.drop(p);
      await p.close?.().catch(() => undefined);
    }
  }

  /** Every provider built now (file and runtime), for shutdown. */
  providers(): Provider[] {
    return [...this.file.values(), ...this.runtime.values()].map((b) => b.provider);
  }
}

function sameRecords(a: Map<string, ProviderRecord>, b: Map<string, ProviderRecord>): boolean {
  if (a.size !== b.size) return false;
  for (const [name, rec] of a) {
    const o = b.get(name);
    if (!o || o.created_at !== rec.created_at || JSON.stringify(o.section) !== JSON.stringify(rec.section)) return false;
  }
  return true;
}

function sameUnreadable(a: Unreadable, b: Unreadable): boolean {
  const same = (x: Map<string, string>, y: Map<string, string>) => x.size === y.size && [...x].every(([name, reason]) => y.get(name) === reason);
  return same(a.keys, b.keys) && same(a.providers, b.providers);
}

function sameKeys(a: Map<string, RuntimeKeyRecord>, b: Map<string, RuntimeKeyRecord>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) {
    const o = b.get(k);
    if (!o || JSON.stringify(o) !== JSON.stringify(v)) return false;
  }
  return true;
}

/** A failed provider build as the admin API answers it: 400 for the section, the upstream's status for discovery. */
function createError(name: string, err: unknown): GatewayError {
  if (err instanceof GatewayError) {
    return new GatewayError(err.status, `cannot create provider '${name}': ${err.message}`, {
      code: err.code,
      def: err.def,
      upstreamStatus: err.upstreamStatus,
      cause: err,
    });
  }
  if (err instanceof ConfigError) {
    const prefix = `providers.${name}`;
    const param = err.path.startsWith(`${prefix}.`) ? err.path.slice(prefix.length + 1) : null;
    const message = err.message.startsWith(`${RUNTIME_LABEL}: `) ? err.message.slice(RUNTIME_LABEL.length + 2) : err.message;
    return INVALID_PROVIDER(message, { param });
  }
  if (err instanceof PluginError) return INVALID_PROVIDER(err.message, { param: 'kind' });
  throw err;
}
