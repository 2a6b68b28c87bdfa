/**
 * Opening the configured store: Redis when `[store] url` is set (several instances share
 * it), else LevelDB under `data_dir` (one process owns it). docs/design.md "Store and processes".
 */
import { isAbsolute, join } from 'node:path';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config/schema.ts';
import { openLevelStore } from './level.ts';
import type { Store } from './types.ts';

/** Which backend a config selects, and where it lives (the Redis URL without its password). */
export function storeKind(config: GatewayConfig): 'redis' | 'level' {
  return config.store?.url ? 'redis' : 'level';
}

/**
 * Opens the store `config` selects.
 * @throws UserError `cannot open the store…`: LevelDB held by another process, or Redis
 *   unreachable at start (the message names `[store]` and the URL, never its password).
 */
export async function openStore(config: GatewayConfig, log?: Logger): Promise<Store> {
  // ioredis and the Lua scripts are loaded only for a Redis store: a LevelDB gateway does
  // not carry them in memory (about 8 MB of RSS at rest)
  if (config.store?.url) return (await import('./redis.ts')).openRedisStore(config.store.url, log);
  return openLevelStore(isAbsolute(config.data_dir) ? config.data_dir : join(config.dir, config.data_dir));
}
