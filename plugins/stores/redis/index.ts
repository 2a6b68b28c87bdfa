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
    // only for a Redis store: why: docs/benchmarks.md#redis-loaded-lazily
    const { openRedisStore } = await import('./redis.ts');
    return openRedisStore(url, log);
  },
});
