/**
 * Opening the configured store through its store plugin (StorePlugin in lib/store/plugin.ts): the
 * scheme of `[store] url` names the plugin (`redis://…` → plugins/stores/redis, else the npm
 * package gw-plugin-redis), and a config without a url gets the default, `level` (LevelDB
 * under `data_dir`). docs/design.md "Store and processes".
 */
import { isAbsolute, join } from 'node:path';
import type { Logger } from 'pino';
import { z } from 'zod';
import { ConfigError } from '../lib/config/error.ts';
import type { GatewayConfig } from '../lib/config/schema.ts';
import type { Store } from '../lib/store/types.ts';
import type { StorePlugin } from '../lib/store/plugin.ts';
import { findPlugin, type LoadedPlugin, runSetup } from '../core/plugins/loader.ts';

/** The store plugin of a config without `[store] url`. */
export const DEFAULT_STORE = 'level';

/** What a store plugin without a `configSchema` accepts beside `url`: nothing. */
const NO_SETTINGS = z.strictObject({});

/** The open store and what its plugin declares. */
export interface OpenedStore {
  store: Store;
  /** The store plugin's name (`level`, `redis`…). */
  name: string;
  /** Several gw processes may share it (StorePlugin.shared). */
  shared: boolean;
}

/** `data_dir` as an absolute path (a relative one is relative to the config file). */
export function dataDir(config: GatewayConfig): string {
  return isAbsolute(config.data_dir) ? config.data_dir : join(config.dir, config.data_dir);
}

/**
 * The store plugin `config` selects. The plugin is named by the url's scheme, lower-cased;
 * a TLS scheme `<name>s` (`rediss`) is served by the plugin `<name>` when none has the
 * longer name.
 * @throws ConfigError naming `store.url` when no plugin serves the scheme; PluginError for
 *   a plugin that fails to load or breaks the contract.
 */
export async function findStore(config: GatewayConfig): Promise<LoadedPlugin<StorePlugin>> {
  const url = config.store?.url;
  const scheme = url === undefined ? DEFAULT_STORE : url.slice(0, url.indexOf(':')).toLowerCase();
  const found = (await findPlugin('store', scheme)) ?? (scheme.endsWith('s') ? await findPlugin('store', scheme.slice(0, -1)) : undefined);
  if (found) return found;
  throw new ConfigError(
    config.file,
    ['store', 'url'],
    `no store serves ${scheme}:// URLs: there is no built-in store '${scheme}' and the npm package gw-plugin-${scheme} is not installed`,
  );
}

/**
 * Opens the store `config` selects: its plugin's `open` gets the url, the rest of
 * `[store]` parsed by the plugin's schema, and `data_dir`.
 * @throws ConfigError for `[store]` settings the plugin rejects; the plugin's UserError when
 *   the store cannot be opened (LevelDB held by another process, Redis unreachable: the
 *   message names `[store]` and the url without its password); for an npm plugin anything
 *   else it throws, as one PluginError line (runSetup).
 */
export async function openStore(config: GatewayConfig, log: Logger): Promise<OpenedStore> {
  const found = await findStore(config);
  const { url, ...settings } = config.store ?? {};
  const parsed = (found.plugin.configSchema ?? NO_SETTINGS).safeParse(settings);
  if (!parsed.success) throw ConfigError.fromZod(config.file, ['store'], parsed.error);
  const { name, shared } = found.plugin;
  const store = await runSetup(found, name, () => found.plugin.open({ url, config: parsed.data, dataDir: dataDir(config), log }));
  return { store, name, shared };
}
