/**
 * The Redis store plugin: `[store] url = "redis://[user:password@]host:port/db"`
 * (`rediss://` for TLS). Several gw instances or `--workers` processes on one Redis behave
 * as one gateway (docs/design.md "Store and processes"). How it works: redis.ts.
 */
import { UserError } from 'gw/plugin';
import { defineStore } from 'gw/plugin/store';

export default defineStore({
  name: 'redis',
  shared: true,
  async open({ url, log }) {
    if (url === undefined) throw new UserError('[store]: the Redis store needs url = "redis://host:port/db"');
    // ioredis and the Lua scripts are loaded only for a Redis store: a LevelDB gateway does
    // not carry them in memory (about 8 MB of RSS at rest)
    const { openRedisStore } = await import('./redis.ts');
    return openRedisStore(url, log);
  },
});
