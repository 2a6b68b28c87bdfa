/**
 * Runtime changes to a running gateway: admin changes (provider-admin.ts, key-admin.ts),
 * reloads and other instances' changes (replication.ts). Each runs `change` (under the store
 * lock: check, store, apply, tell), each state change `apply` (a new snapshot, swapped in).
 */
import type { GatewayConfig } from '../../lib/config/schema.ts';
import type { Provider } from '../../lib/provider.ts';
import { SecretRedactor } from '../../lib/redact.ts';
import { reconcile, type BuiltProvider, type Snapshot } from '../../core/snapshot.ts';
import { buildProvider } from '../build-provider.ts';
import { loadConfig } from '../config/load.ts';
import { KeyAdmin } from './key-admin.ts';
import { ProviderAdmin, RUNTIME_LABEL } from './provider-admin.ts';
import { RuntimeRecords } from './records.ts';
import { Replication } from './replication.ts';
import { applyReloadable } from './restart-only.ts';
import type { Change, Commit, RuntimeHost, RuntimeState } from './state.ts';

/** The outcome of a reload. */
export interface ReloadReport {
  file: string;
  providers: number;
  models: number;
  keys: number;
  /** Settings kept until a restart, shadowed runtime entries, providers that failed to build. */
  warnings: string[];
}

export class Runtime {
  /** Runtime providers: list, create, delete (the admin API's). */
  readonly providers: ProviderAdmin;
  /** Gateway keys: list, create, update, rotate, revoke, and the warnings of unenforced settings. */
  readonly keys: KeyAdmin;
  private readonly host: RuntimeHost;
  private readonly records: RuntimeRecords;
  private readonly replication: Replication;
  private readonly state: RuntimeState = {
    file: new Map(),
    stored: new Map(),
    built: new Map(),
    unbuilt: new Map(),
    keyRecords: new Map(),
    unreadable: { providers: new Map(), keys: new Map() },
  };
  /** Providers swapped out while requests may still use them; closed with the gateway. */
  private readonly retired: Provider[] = [];
  private version = 0;

  constructor(host: RuntimeHost) {
    this.host = host;
    this.records = new RuntimeRecords(host.store);
    this.replication = new Replication(host, this.records, this.state, (change) => this.apply(change));
    const change = <T>(fn: (commit: Commit) => Promise<T>) => this.change(fn);
    this.providers = new ProviderAdmin(host, this.records, this.state, change);
    this.keys = new KeyAdmin(host, this.records, this.state, change);
  }

  private get config(): GatewayConfig {
    return this.host.snapshot.config;
  }

  /** The first snapshot: the file's providers (a failure stops startup), the stored ones (a failure is a warning); polling starts. */
  async start(config: GatewayConfig): Promise<Snapshot> {
    const version = await this.replication.version();
    const warnings = await this.apply({ config, ...(await this.replication.read()) });
    for (const w of warnings) this.host.log.warn(w);
    if (version !== undefined) this.replication.start(version);
    return this.host.snapshot;
  }

  /**
   * Re-reads the config file; unchanged providers are kept, restart-only settings keep their values.
   * @throws ConfigError (file, key path, what was expected); the running config is kept.
   */
  reload(): Promise<ReloadReport> {
    return this.change(
      async (commit) => {
        const log = this.host.log;
        const running = this.config;
        const { config, warnings } = applyReloadable(running, await loadConfig(running.file));
        for (const w of await commit({ config })) warnings.push(w);
        for (const w of this.keys.warnings()) warnings.push(w);
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
   * Every runtime change: the admin lock, catch up, `fn` checks and commits once (store, apply,
   * tell the others). `local` (a reload) neither catches up nor tells. @throws what `fn` throws.
   */
  private change<T>(fn: (commit: Commit) => Promise<T>, opts: { local?: boolean } = {}): Promise<T> {
    return this.records.exclusive(async () => {
      if (!opts.local) await this.replication.catchUp();
      let committed = false;
      return fn(async (next, save) => {
        if (committed) throw new Error('a runtime change commits once');
        committed = true;
        await save?.();
        const warnings = await this.apply(next);
        if (!opts.local) await this.replication.announce();
        return warnings;
      });
    });
  }

  /**
   * The one way state changes: the changed providers built (the rest reused), a snapshot swapped
   * in, the unrouted retired; its warnings. @throws ConfigError when a file provider fails to build.
   */
  private async apply(change: Change): Promise<string[]> {
    const state = this.state;
    const config = change.config ?? this.config;
    const stored = change.stored ?? state.stored;
    const keyRecords = change.keyRecords ?? state.keyRecords;
    const warnings: string[] = [];
    const fresh: Provider[] = [];
    const file = new Map<string, BuiltProvider>();
    try {
      for (const [name, s] of Object.entries(config.providers)) {
        const section = s as Record<string, unknown>;
        const prev = state.file.get(name);
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
    const built = new Map<string, BuiltProvider>();
    const unbuilt = new Map<string, string>();
    for (const name of [...stored.keys()].sort()) {
      const rec = stored.get(name)!;
      if (file.has(name)) {
        warnings.push(`runtime provider '${name}' is shadowed by [providers.${name}] in the config file`);
        continue;
      }
      const json = JSON.stringify(rec.section);
      const prev = state.built.get(name);
      if (prev && prev.json === json) {
        built.set(name, prev);
        continue;
      }
      const pre = change.prebuilt?.get(name);
      if (pre) {
        built.set(name, pre);
        continue;
      }
      try {
        built.set(name, await buildProvider(name, rec.section, RUNTIME_LABEL, this.host));
      } catch (err) {
        // an error of the kind's setup may quote its section: never its api_key
        const reason = new SecretRedactor([rec.section.api_key as string]).redact((err as Error).message);
        // a known failure is warned about once (at start, or when the record changes), not at every re-read
        if (state.unbuilt.get(name) !== reason)
          warnings.push(
            `runtime provider '${name}' cannot be built and serves nothing: ${reason}; delete it (gw providers delete ${name}) and create it again`,
          );
        unbuilt.set(name, reason);
      }
    }
    for (const name of keyRecords.keys()) {
      if (Object.hasOwn(config.keys, name)) warnings.push(`runtime key '${name}' is shadowed by [keys.${name}] in the config file`);
    }
    const before = new Set<Provider>([...state.file.values(), ...state.built.values()].map((b) => b.provider));
    const snap = reconcile({ config, file, runtime: built, keyRecords, members: this.host.members, version: ++this.version, priceTable: this.host.priceTable });
    state.file = file;
    state.built = built;
    state.stored = stored;
    state.keyRecords = keyRecords;
    state.unbuilt = unbuilt;
    if (change.unreadable) state.unreadable = change.unreadable;
    this.host.swap(snap);
    for (const b of [...file.values(), ...built.values()]) before.delete(b.provider);
    for (const p of before) this.retired.push(p);
    return warnings;
  }

  /** Stops polling; closes providers that were swapped out. */
  async close(): Promise<void> {
    await this.replication.close();
    for (const p of this.retired.splice(0)) {
      this.host.members.drop(p);
      await p.close?.().catch(() => undefined);
    }
  }

  /** Every provider built now (file and runtime), for shutdown. */
  builtProviders(): Provider[] {
    return [...this.state.file.values(), ...this.state.built.values()].map((b) => b.provider);
  }
}
