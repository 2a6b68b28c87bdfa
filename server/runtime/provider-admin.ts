/**
 * Runtime providers through the admin API: listed beside the file's, created (validated,
 * built, models discovered when none are given, stored) and deleted. Each change runs as a
 * runtime change (runtime.ts): checked under the admin lock, then committed once.
 */
import { ConfigError } from '../../lib/config/error.ts';
import { DISCOVERY_FAILED } from '../../lib/http/errors.ts';
import { GatewayError } from '../../core/errors.ts';
import { PluginError } from '../../core/plugins/loader.ts';
import type { BuiltProvider } from '../../core/snapshot.ts';
import { buildProvider } from '../build-provider.ts';
import { DEFINED_IN_FILE, INVALID_PROVIDER, MODELS_REQUIRED, PROVIDER_EXISTS, PROVIDER_NOT_FOUND, RECORD_UNREADABLE } from '../errors.ts';
import { providerListing, type ProviderListing, unreadableProvider, type UnreadableProviderListing } from './listing.ts';
import type { ProviderRecord } from './records.ts';
import { AdminPart } from './state.ts';

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

/** How runtime-built providers are named in their ConfigErrors. */
export const RUNTIME_LABEL = 'runtime provider';

export class ProviderAdmin extends AdminPart {
  /**
   * File providers (config order) then runtime ones (name order), secrets masked; a stored
   * runtime provider that cannot be read or built is listed too, marked `unreadable` with the reason.
   */
  list(): Array<ProviderListing | UnreadableProviderListing> {
    const { file, built, stored, unbuilt, unreadable } = this.state;
    const members = this.host.members;
    const out: Array<ProviderListing | UnreadableProviderListing> = [];
    for (const b of file.values()) out.push(providerListing(b.provider, b.section, 'file', members.get(b.provider)));
    const names = new Set([...built.keys(), ...unbuilt.keys(), ...unreadable.providers.keys()]);
    for (const name of [...names].sort()) {
      const b = built.get(name);
      if (b) out.push(providerListing(b.provider, b.section, 'runtime', members.get(b.provider)));
      else if (!file.has(name)) out.push(unreadableProvider(name, stored.get(name)?.section, unbuilt.get(name) ?? unreadable.providers.get(name)!));
    }
    return out;
  }

  /**
   * Validates, builds (discovering models when none are given), stores and routes a provider.
   * @throws GatewayError 409 name taken, 400 invalid section or unknown kind,
   *   502/504 discovery failed (message names the URL and the status).
   */
  create(input: ProviderInput): Promise<ProviderListing> {
    return this.change(async (commit) => {
      const { name, ...fields } = input;
      const state = this.state;
      if (state.file.has(name)) throw PROVIDER_EXISTS({ name, where: `defined in the config file ${this.host.snapshot.config.file}` });
      if (state.stored.has(name)) throw PROVIDER_EXISTS({ name, where: 'created at runtime' });
      const unreadable = state.unreadable.providers.get(name);
      if (unreadable !== undefined) throw RECORD_UNREADABLE({ what: 'provider', name, reason: unreadable, action: 'create a provider of that name' });
      const section: Record<string, unknown> = { ...fields, kind: fields.kind ?? name };
      if (!Array.isArray(section.models) || section.models.length === 0) delete section.models;
      let built: BuiltProvider;
      try {
        built = await buildProvider(name, section, RUNTIME_LABEL, this.host, { discovery: 'throw' });
      } catch (err) {
        throw createError(name, err);
      }
      const provider = built.provider;
      if (provider.models.length === 0) {
        await provider.close?.().catch(() => undefined);
        throw provider.listModels
          ? DISCOVERY_FAILED(`cannot create provider '${name}': the upstream's model list is empty; give models`, { param: 'models' })
          : MODELS_REQUIRED({ name, why: `kind '${String(section.kind)}' cannot list its models` });
      }
      const record: ProviderRecord = { name, created_at: new Date().toISOString(), section: { ...section, models: [...provider.models] } };
      const stored = new Map(state.stored).set(name, record);
      const prebuilt = new Map([[name, { ...built, section: record.section, json: JSON.stringify(record.section) }]]);
      await commit({ stored, prebuilt }, () => this.records.putProvider(record));
      this.host.log.info({ provider: name, kind: provider.kind, models: provider.models.length }, 'provider created');
      return providerListing(provider, record.section, 'runtime', this.host.members.get(provider));
    });
  }

  /**
   * Removes a runtime provider; requests in flight on it finish.
   * @throws GatewayError 409 when the config file defines it, 404 when unknown.
   */
  delete(name: string): Promise<void> {
    return this.change(async (commit) => {
      const state = this.state;
      if (state.file.has(name)) throw DEFINED_IN_FILE({ what: 'provider', name, file: this.host.snapshot.config.file });
      if (await this.dropUnreadable(commit, 'providers', name, () => this.records.deleteProvider(name))) return;
      if (!state.stored.has(name)) throw PROVIDER_NOT_FOUND(name);
      const stored = new Map(state.stored);
      stored.delete(name);
      await commit({ stored }, () => this.records.deleteProvider(name));
      this.host.log.info({ provider: name }, 'provider deleted');
    });
  }
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
