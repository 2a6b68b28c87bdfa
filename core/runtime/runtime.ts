/**
 * Runtime changes to a running gateway: providers and keys created or removed through the
 * admin API, and config reloads. Every change builds new immutable tables (RoutingTable,
 * KeyTable) and swaps them into the Gateway in one synchronous step, so a request in
 * flight keeps the providers and key it started with and the next request sees the change.
 * Changes are serialized by the store lock `admin:changes`.
 *
 * Several instances on one shared store (Redis) see each other's changes by polling: every
 * change bumps the counter `admin:version`; each instance reads it every second
 * (POLL_MS) and, when it moved, re-reads the stored providers and keys and swaps in new
 * tables, so a change reaches every instance within about 1 s (2 s at most, DESIGN.md
 * "Store and processes"). A full re-read every 30 s covers a lost bump. The LevelDB store
 * has one process, so nothing polls it.
 */
import { ConfigError } from '../config/error.ts';
import { generateSecret } from '../config/first-run.ts';
import { loadConfig } from '../config/load.ts';
import { GatewayError } from '../errors.ts';
import { buildProvider, type Gateway } from '../gateway.ts';
import { hashSecret, KeyTable, type KeyListing } from '../keys.ts';
import type { Provider } from '../provider.ts';
import { RoutingTable } from '../routing.ts';
import { providerListing, type ProviderListing } from './listing.ts';
import { RuntimeRecords, type ProviderRecord } from './records.ts';
import { applyReloadable } from './restart-only.ts';

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

/** A key created at runtime: the only time its secret is shown. */
export interface CreatedKey {
  name: string;
  source: 'runtime';
  key: string;
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

/** How often an instance on a shared store checks `admin:version`. */
export const POLL_MS = 1000;
/** Re-read the records this often even when the version did not move. */
const RESYNC_MS = 30_000;

/** How runtime-built providers are named in their ConfigErrors. */
const RUNTIME_LABEL = 'runtime provider';

interface FileProvider {
  provider: Provider;
  section: Record<string, unknown>;
  /** Serialized section: an unchanged section keeps its provider (and its breaker) on reload. */
  json: string;
}

export class Runtime {
  private readonly gw: Gateway;
  private readonly records: RuntimeRecords;
  private file: Map<string, FileProvider>;
  /** Every stored runtime provider, built or not. */
  private readonly stored: Map<string, ProviderRecord>;
  /** Built runtime providers: stored ones not shadowed by a file provider. */
  private built: Map<string, Provider>;
  private readonly keyHashes: Map<string, string>;
  /** Providers swapped out while requests may still use them; closed with the gateway. */
  private readonly retired: Provider[] = [];
  /** `admin:version` as of the records this instance has applied. */
  private seen = 0;
  private poller: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private lastSync = 0;

  constructor(gw: Gateway, records: RuntimeRecords, file: Map<string, FileProvider>, stored: Map<string, ProviderRecord>, built: Map<string, Provider>, keyHashes: Map<string, string>) {
    this.gw = gw;
    this.records = records;
    this.file = file;
    this.stored = stored;
    this.built = built;
    this.keyHashes = keyHashes;
  }

  /** File providers (config order) then runtime ones (name order), secrets masked. */
  listProviders(): ProviderListing[] {
    const out: ProviderListing[] = [];
    for (const f of this.file.values()) out.push(providerListing(f.provider, f.section, 'file'));
    for (const name of [...this.built.keys()].sort()) out.push(providerListing(this.built.get(name)!, this.stored.get(name)!.section, 'runtime'));
    return out;
  }

  /**
   * Validates, builds (discovering models when none are given), stores and routes a provider.
   * @throws GatewayError 409 name taken, 400 invalid section or unknown kind,
   *   502/504 discovery failed (message names the URL and the status).
   */
  createProvider(input: ProviderInput): Promise<ProviderListing> {
    return this.records.exclusive(async () => {
      await this.catchUp();
      const { name, ...fields } = input;
      if (this.file.has(name)) throw new GatewayError(409, `provider '${name}' already exists (defined in the config file ${this.gw.config.file})`, { code: 'provider_exists', param: 'name' });
      if (this.stored.has(name)) throw new GatewayError(409, `provider '${name}' already exists (created at runtime)`, { code: 'provider_exists', param: 'name' });
      const section: Record<string, unknown> = { ...fields, kind: fields.kind ?? name };
      const discover = !Array.isArray(section.models) || section.models.length === 0;
      if (discover) delete section.models;
      let provider: Provider;
      try {
        provider = await buildProvider(name, section, RUNTIME_LABEL, this.gw.store, this.gw.log, { discovery: 'throw' });
      } catch (err) {
        throw createError(name, err);
      }
      if (provider.models.length === 0) {
        await provider.close?.().catch(() => undefined);
        throw provider.listModels
          ? new GatewayError(502, `cannot create provider '${name}': the upstream's model list is empty; give models`, { code: 'discovery_failed', param: 'models' })
          : new GatewayError(400, `cannot create provider '${name}': kind '${String(section.kind)}' cannot list its models; give models`, { code: 'models_required', param: 'models' });
      }
      const record: ProviderRecord = { name, created_at: new Date().toISOString(), section: { ...section, models: [...provider.models] } };
      await this.records.putProvider(record);
      this.stored.set(name, record);
      this.built.set(name, provider);
      this.swap();
      await this.announce();
      this.gw.log.info({ provider: name, kind: provider.kind, models: provider.models.length }, 'provider created');
      return providerListing(provider, record.section, 'runtime');
    });
  }

  /**
   * Removes a runtime provider; requests in flight on it finish.
   * @throws GatewayError 409 when the config file defines it, 404 when unknown.
   */
  deleteProvider(name: string): Promise<void> {
    return this.records.exclusive(async () => {
      await this.catchUp();
      if (this.file.has(name)) throw definedInFile('provider', name, this.gw.config.file);
      if (!this.stored.has(name)) throw new GatewayError(404, `no provider '${name}'`, { code: 'provider_not_found' });
      await this.records.deleteProvider(name);
      this.stored.delete(name);
      const p = this.built.get(name);
      this.built.delete(name);
      this.swap();
      if (p) this.retired.push(p);
      await this.announce();
      this.gw.log.info({ provider: name }, 'provider deleted');
    });
  }

  /** Every gateway key, file and runtime, masked. */
  listKeys(): KeyListing[] {
    return this.gw.keys.list();
  }

  /**
   * Creates a gateway key (first-run format); only its SHA-256 is stored.
   * @throws GatewayError 409 when the name is taken.
   */
  createKey(name: string): Promise<CreatedKey> {
    return this.records.exclusive(async () => {
      await this.catchUp();
      if (Object.hasOwn(this.gw.config.keys, name) || this.keyHashes.has(name)) throw new GatewayError(409, `key '${name}' already exists`, { code: 'key_exists', param: 'name' });
      const key = generateSecret();
      const hash = hashSecret(key);
      await this.records.putKey(name, hash);
      this.keyHashes.set(name, hash);
      this.swap();
      await this.announce();
      this.gw.log.info({ keyName: name }, 'key created');
      return { name, source: 'runtime', key };
    });
  }

  /**
   * Revokes a runtime key; the next request presenting it gets 401.
   * @throws GatewayError 409 when the config file defines it, 404 when unknown.
   */
  revokeKey(name: string): Promise<void> {
    return this.records.exclusive(async () => {
      await this.catchUp();
      if (Object.hasOwn(this.gw.config.keys, name)) throw definedInFile('key', name, this.gw.config.file);
      if (!this.keyHashes.has(name)) throw new GatewayError(404, `no key '${name}'`, { code: 'key_not_found' });
      await this.records.deleteKey(name);
      this.keyHashes.delete(name);
      this.swap();
      await this.announce();
      this.gw.log.info({ keyName: name }, 'key revoked');
    });
  }

  /**
   * Re-reads the config file and applies providers, aliases, keys, pricing, routing and
   * fallbacks. Unchanged provider sections keep their provider; restart-only settings keep
   * their running values (see restart-only.ts).
   * @throws ConfigError (file, key path, what was expected); the running config is kept.
   */
  reload(): Promise<ReloadReport> {
    return this.records.exclusive(async () => {
      const log = this.gw.log;
      const running = this.gw.config;
      const { config, warnings } = applyReloadable(running, await loadConfig(running.file));
      const file = new Map<string, FileProvider>();
      const built = new Map<string, Provider>();
      const fresh: Provider[] = [];
      try {
        for (const [name, s] of Object.entries(config.providers)) {
          const section = s as Record<string, unknown>;
          const json = JSON.stringify(section);
          const prev = this.file.get(name);
          if (prev && prev.json === json) {
            file.set(name, prev);
            continue;
          }
          const provider = await buildProvider(name, section, config.file, this.gw.store, log);
          fresh.push(provider);
          file.set(name, { provider, section, json });
        }
      } catch (err) {
        for (const p of fresh) await p.close?.().catch(() => undefined);
        throw err;
      }
      for (const rec of this.stored.values()) {
        if (file.has(rec.name)) {
          warnings.push(`runtime provider '${rec.name}' is shadowed by [providers.${rec.name}] in the config file`);
          continue;
        }
        const have = this.built.get(rec.name) ?? (await buildStored(this.gw, rec, warnings));
        if (have) built.set(rec.name, have);
      }
      for (const name of this.keyHashes.keys()) {
        if (Object.hasOwn(config.keys, name)) warnings.push(`runtime key '${name}' is shadowed by [keys.${name}] in the config file`);
      }
      const keep = new Set<Provider>([...built.values()]);
      for (const f of file.values()) keep.add(f.provider);
      const before = [...this.file.values()].map((f) => f.provider).concat([...this.built.values()]);
      this.file = file;
      this.built = built;
      this.gw.config = config;
      this.swap();
      for (const p of before) if (!keep.has(p)) this.retired.push(p);
      for (const w of warnings) log.warn(w);
      const report = { file: config.file, providers: this.gw.table.providers.size, models: this.gw.table.models().length, keys: this.gw.keys.names().length, warnings };
      log.info({ file: report.file, providers: report.providers, models: report.models, keys: report.keys }, 'config reloaded');
      return report;
    });
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
      this.gw.log.warn({ err: (err as Error).message }, 'could not announce a runtime change to other instances; they pick it up within 30 s');
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
  startPolling(seen: number): void {
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
      // the store is away: keep the tables we have, try again next tick
      this.gw.log.debug({ err: (err as Error).message }, 'runtime poll failed');
    }
  }

  /**
   * Applies the stored providers and keys as they are now: builds the new ones, retires the
   * removed or changed ones, replaces the key hashes; swaps tables when anything changed.
   */
  private async sync(): Promise<void> {
    const log = this.gw.log;
    const stored = new Map<string, ProviderRecord>();
    for (const rec of await this.records.providers((name, err) => log.warn({ provider: name, err: err.message }, 'unreadable runtime provider record skipped'))) stored.set(rec.name, rec);
    const keyHashes = await this.records.keys();
    let changed = false;
    for (const [name, rec] of [...this.stored]) {
      const now = stored.get(name);
      if (now && now.created_at === rec.created_at && JSON.stringify(now.section) === JSON.stringify(rec.section)) continue;
      this.stored.delete(name);
      const p = this.built.get(name);
      if (p) {
        this.built.delete(name);
        this.retired.push(p);
      }
      changed = true;
    }
    const warnings: string[] = [];
    for (const [name, rec] of stored) {
      if (this.stored.has(name)) continue;
      this.stored.set(name, rec);
      changed = true;
      if (this.file.has(name)) continue; // shadowed by the config file
      const p = await buildStored(this.gw, rec, warnings);
      if (p) this.built.set(name, p);
    }
    for (const w of warnings) log.warn(w);
    if (keyHashes.size !== this.keyHashes.size || [...keyHashes].some(([k, h]) => this.keyHashes.get(k) !== h)) {
      this.keyHashes.clear();
      for (const [k, h] of keyHashes) this.keyHashes.set(k, h);
      changed = true;
    }
    if (changed) {
      this.swap();
      log.info({ providers: this.built.size, keys: this.keyHashes.size }, 'runtime providers and keys updated from the shared store');
    }
  }

  /** Stops polling; closes providers that were swapped out. */
  async close(): Promise<void> {
    if (this.poller) clearInterval(this.poller);
    await this.polling;
    for (const p of this.retired.splice(0)) await p.close?.().catch(() => undefined);
  }

  /** Installs tables built from the current providers, keys and config, in one step. */
  swap(): void {
    const config = this.gw.config;
    const providers: Provider[] = [];
    for (const f of this.file.values()) providers.push(f.provider);
    for (const p of this.built.values()) providers.push(p);
    this.gw.table = new RoutingTable(providers, config.aliases, config.routing, config.fallbacks);
    this.gw.keys = new KeyTable(config.keys, Object.fromEntries(this.keyHashes));
  }
}

/**
 * Adds the store's runtime providers and keys to a gateway built from its file: file
 * entries win a name clash (with a warning); a stored provider that cannot be built is
 * skipped with a warning. Swaps in the merged tables.
 */
export async function attachRuntime(gw: Gateway, fileProviders: Provider[]): Promise<Runtime> {
  const log = gw.log;
  const records = new RuntimeRecords(gw.store);
  // read before the records: a change stored in between is then seen as a new version
  const version = gw.config.store?.url ? await records.version() : undefined;
  const file = new Map<string, FileProvider>();
  for (const p of fileProviders) {
    const section = (gw.config.providers[p.name] ?? {}) as Record<string, unknown>;
    file.set(p.name, { provider: p, section, json: JSON.stringify(section) });
  }
  const stored = new Map<string, ProviderRecord>();
  for (const rec of await records.providers((name, err) => log.warn({ provider: name, err: err.message }, 'unreadable runtime provider record skipped'))) stored.set(rec.name, rec);
  const keyHashes = await records.keys();
  const warnings: string[] = [];
  const built = new Map<string, Provider>();
  for (const rec of stored.values()) {
    if (file.has(rec.name)) {
      warnings.push(`runtime provider '${rec.name}' is shadowed by [providers.${rec.name}] in the config file`);
      continue;
    }
    const p = await buildStored(gw, rec, warnings);
    if (p) built.set(rec.name, p);
  }
  for (const name of keyHashes.keys()) {
    if (Object.hasOwn(gw.config.keys, name)) warnings.push(`runtime key '${name}' is shadowed by [keys.${name}] in the config file`);
  }
  for (const w of warnings) log.warn(w);
  const rt = new Runtime(gw, records, file, stored, built, keyHashes);
  rt.swap();
  // several instances share a Redis store: learn each other's changes
  if (version !== undefined) rt.startPolling(version);
  return rt;
}

/** Builds a stored runtime provider; a failure skips it with a warning (it stays stored). */
async function buildStored(gw: Gateway, rec: ProviderRecord, warnings: string[]): Promise<Provider | undefined> {
  try {
    return await buildProvider(rec.name, rec.section, RUNTIME_LABEL, gw.store, gw.log);
  } catch (err) {
    warnings.push(`runtime provider '${rec.name}' cannot be built and serves nothing: ${(err as Error).message}`);
    return undefined;
  }
}

function definedInFile(what: 'provider' | 'key', name: string, file: string): GatewayError {
  const section = what === 'provider' ? `[providers.${name}]` : `[keys.${name}]`;
  return new GatewayError(409, `${what} '${name}' is defined in the config file ${file}; remove ${section} there, then reload (gw reload)`, { code: 'defined_in_config_file' });
}

/** A failed provider build as the admin API answers it: 400 for the section, the upstream's status for discovery. */
function createError(name: string, err: unknown): GatewayError {
  if (err instanceof GatewayError) {
    return new GatewayError(err.status, `cannot create provider '${name}': ${err.message}`, { code: err.code ?? 'discovery_failed', upstreamStatus: err.upstreamStatus, cause: err });
  }
  if (err instanceof ConfigError) {
    const prefix = `providers.${name}`;
    const param = err.path.startsWith(`${prefix}.`) ? err.path.slice(prefix.length + 1) : null;
    const message = err.message.startsWith(`${RUNTIME_LABEL}: `) ? err.message.slice(RUNTIME_LABEL.length + 2) : err.message;
    return new GatewayError(400, `invalid provider: ${message}`, { code: 'invalid_provider', param });
  }
  if ((err as Error)?.name === 'PluginError') return new GatewayError(400, `invalid provider: ${(err as Error).message}`, { code: 'invalid_provider', param: 'kind' });
  throw err;
}
