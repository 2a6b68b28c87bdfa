/**
 * The store plugin kind: a backend for the one Store every plugin shares (types.ts). The
 * built-in ones are plugins/stores/level and plugins/stores/redis; a third party publishes
 * `gw-plugin-<scheme>`. Authors import it from `gw/plugin`.
 */
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { Store } from './types.ts';

/** Context handed to a store plugin's `open`, once per process at startup. */
export interface StoreSetup<C> {
  /**
   * `[store] url` as written (`redis://:password@host:6379/0`); undefined when the config
   * gives none (the default store). It may carry a password: never log it or put it in an
   * error as it is (`redactUrl` masks the password).
   */
  url: string | undefined;
  /** `[store]` without `url`, parsed by `configSchema` ({} when the plugin has none). */
  config: C;
  /** `data_dir`, absolute: where a store that keeps local files keeps them. */
  dataDir: string;
  log: Logger;
}

/**
 * A store backend. The scheme of `[store] url` names it (`postgres://…` → the plugin
 * `postgres`: plugins/stores/postgres/, else the npm package gw-plugin-postgres; a TLS
 * scheme `<name>s` is served by `<name>` when no plugin has the longer name); without a
 * url the store is the embedded `level` under `data_dir`. `open` returns the process's one
 * Store, which the core namespaces for every plugin and closes at shutdown. A backend keeps
 * every rule documented on `Store` (lib/store/types.ts; test/unit/store-conformance.ts
 * checks them), so plugins never learn which one they have.
 */
export interface StorePlugin<C = unknown> {
  readonly type: 'store';
  /** The store's name: the scheme of `[store] url` that selects it. */
  readonly name: string;
  /** The gw versions this store works with, a semver range, checked at load (as a provider's `gw`). */
  readonly gw?: string;
  /** Validates `[store]` minus `url`; absent: the section may hold nothing but `url`. */
  readonly configSchema?: z.ZodType<C>;
  /**
   * Several gw processes may open the same store at once and behave as one gateway
   * (limits, budgets, runtime providers and keys shared): `gw serve --workers N` (N > 1)
   * needs it, and each instance then polls the store for the others' runtime changes.
   */
  readonly shared: boolean;
  /**
   * Opens (connects to, creates) the store. A store that cannot be opened throws a
   * UserError naming `[store]` (and the url without its password), which stops gw with
   * that one line.
   */
  open(ctx: StoreSetup<C>): Store | Promise<Store>;
}

/** Declares a store backend; without `configSchema` its config is `{}` (the section holds `url` only). */
export function defineStore<S extends z.ZodType = z.ZodType<Record<string, never>>>(
  p: Omit<StorePlugin<z.output<S>>, 'configSchema' | 'type'> & { configSchema?: S },
): StorePlugin<z.output<S>> {
  return { ...p, type: 'store' } as StorePlugin<z.output<S>>;
}
