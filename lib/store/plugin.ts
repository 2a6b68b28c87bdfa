/** The store plugin kind: a backend for the one Store (types.ts), built-in or `gw-plugin-<scheme>`. */
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { Store } from './types.ts';

/** Context handed to a store plugin's `open`, once per process at startup. */
export interface StoreSetup<C> {
  /** `[store] url` as written, undefined for the default store; it may carry a password (`redactUrl` masks it). */
  url: string | undefined;
  /** `[store]` without `url`, parsed by `configSchema` ({} when the plugin has none). */
  config: C;
  /** `data_dir`, absolute: where a store that keeps local files keeps them. */
  dataDir: string;
  log: Logger;
}

/**
 * A store backend, named by the scheme of `[store] url` (`<name>s` served by `<name>`). `open`
 * returns the process's one Store, keeping every rule of lib/store/types.ts.
 */
export interface StorePlugin<C = unknown> {
  readonly type: 'store';
  /** The store's name: the scheme of `[store] url` that selects it. */
  readonly name: string;
  /** The gw versions this store works with, a semver range, checked at load (as a provider's `gw`). */
  readonly gw?: string;
  /** Validates `[store]` minus `url`; absent: the section may hold nothing but `url`. */
  readonly configSchema?: z.ZodType<C>;
  /** Several gw processes may share it as one gateway (`--workers N` needs it). */
  readonly shared: boolean;
  /** Opens the store. @throws UserError naming `[store]` (url without its password) when it cannot. */
  open(ctx: StoreSetup<C>): Store | Promise<Store>;
}

/** Declares a store backend; without `configSchema` its config is `{}` (the section holds `url` only). */
export function defineStore<S extends z.ZodType = z.ZodType<Record<string, never>>>(
  p: Omit<StorePlugin<z.output<S>>, 'configSchema' | 'type'> & { configSchema?: S },
): StorePlugin<z.output<S>> {
  return { ...p, type: 'store' } as StorePlugin<z.output<S>>;
}
