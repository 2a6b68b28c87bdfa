/** Opening the store `[store] url`'s scheme names (none: `level`, LevelDB under `data_dir`) through its plugin. */
import { isAbsolute, join } from 'node:path';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../lib/config/schema.ts';
import type { Store } from '../lib/store/types.ts';
import { type LoadedSection, loadPlugin, setUp } from '../core/plugins/load.ts';

/** The store plugin of a config without `[store] url`. */
export const DEFAULT_STORE = 'level';

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
 * The store plugin of the url's scheme (`rediss` served by `redis`), `[store]` but `url` parsed.
 * @throws ConfigError, PluginError (core/plugins/load.ts).
 */
export async function findStore(config: GatewayConfig): Promise<LoadedSection<'store'>> {
  const { url, ...settings } = config.store ?? {};
  const scheme = url === undefined ? DEFAULT_STORE : url.slice(0, url.indexOf(':')).toLowerCase();
  return loadPlugin({
    type: 'store',
    name: scheme,
    file: config.file,
    path: ['store'],
    nameAt: ['store', 'url'],
    settings,
    fallbacks: scheme.endsWith('s') ? [scheme.slice(0, -1)] : [],
    hint: 'the scheme of [store] url names the store plugin',
  });
}

/**
 * Opens the store `config` selects. @throws what findStore throws; the plugin's UserError when
 * the store cannot be opened; for an npm plugin anything else as one PluginError line.
 */
export async function openStore(config: GatewayConfig, log: Logger): Promise<OpenedStore> {
  const { found, config: settings } = await findStore(config);
  const { name, shared } = found.plugin;
  const store = await setUp(found, name, () => found.plugin.open({ url: config.store?.url, config: settings, dataDir: dataDir(config), log }));
  return { store, name, shared };
}
