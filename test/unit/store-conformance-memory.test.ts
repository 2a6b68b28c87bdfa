/**
 * The store contract (store-conformance.ts) on a third-party store plugin: gw-plugin-memory
 * (test/fixtures/gw-plugin-memory, installed as a devDependency), written only against
 * `gw/plugin` and opened as the core opens every store, from `[store] url`.
 */
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { parseConfig } from '../../server/config/load.ts';
import { createLogger } from '../../server/log.ts';
import { openStore } from '../../server/open-store.ts';
import type { Store } from '../../lib/store/types.ts';
import { storeConformance } from './store-conformance.ts';

const log = createLogger('silent');

storeConformance(test, 'memory (npm store plugin)', async (t) => {
  const file = join(tmpdir(), 'gw-memory-conformance.toml');
  const config = parseConfig(`[store]\nurl = "memory://${randomUUID()}"\n`, file, file, {});
  const open = async (): Promise<Store> => {
    const opened = await openStore(config, log);
    t.deepEqual([opened.name, opened.shared], ['memory', false]);
    return opened.store;
  };
  let current = await open();
  t.teardown(() => current.close());
  return {
    store: current,
    async reopen() {
      await current.close();
      current = await open();
      return current;
    },
  };
});
