/**
 * Runtime changes to a running gateway: providers and keys created or removed through the
 * admin API, and config reloads. Every change builds new immutable tables (RoutingTable,
 * KeyTable) and swaps them into the Gateway in one synchronous step, so a request in
 * flight keeps the providers and key it started with and the next request sees the change.
 * Changes are serialized by the store lock `admin:changes`.
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
      if (this.file.has(name)) throw definedInFile('provider', name, this.gw.config.file);
      if (!this.stored.has(name)) throw new GatewayError(404, `no provider '${name}'`, { code: 'provider_not_found' });
      await this.records.deleteProvider(name);
      this.stored.delete(name);
      const p = this.built.get(name);
      this.built.delete(name);
      this.swap();
      if (p) this.retired.push(p);
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
      if (Object.hasOwn(this.gw.config.keys, name) || this.keyHashes.has(name)) throw new GatewayError(409, `key '${name}' already exists`, { code: 'key_exists', param: 'name' });
      const key = generateSecret();
      const hash = hashSecret(key);
      await this.records.putKey(name, hash);
      this.keyHashes.set(name, hash);
      this.swap();
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
      if (Object.hasOwn(this.gw.config.keys, name)) throw definedInFile('key', name, this.gw.config.file);
      if (!this.keyHashes.has(name)) throw new GatewayError(404, `no key '${name}'`, { code: 'key_not_found' });
      await this.records.deleteKey(name);
      this.keyHashes.delete(name);
      this.swap();
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

  /** Closes providers that were swapped out. */
  async close(): Promise<void> {
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
