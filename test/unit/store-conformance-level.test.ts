/**
 * The store contract (store-conformance.ts) on the LevelDB backend.
 */
import test from 'ava';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openLevelStore } from '../../plugins/stores/level/level.ts';
import type { Store } from '../../lib/store/types.ts';
import { storeConformance } from './store-conformance.ts';

storeConformance(test, 'leveldb', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-store-'));
  let current: Store = await openLevelStore(dir);
  t.teardown(async () => {
    await current.close().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  });
  return {
    store: current,
    async reopen() {
      await current.close();
      current = await openLevelStore(dir);
      return current;
    },
  };
});
