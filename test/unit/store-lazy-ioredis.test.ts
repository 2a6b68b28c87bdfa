/**
 * A LevelDB gateway does not load ioredis (about 8 MB of RSS at rest): the Redis store
 * plugin imports it when a Redis store is opened, not when the plugin is found. Every module
 * resolution of this test's thread is recorded from the start; what the test loads, it
 * loads after that (dynamic imports).
 */
import test from 'ava';
import { registerHooks } from 'node:module';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const resolved: string[] = [];
registerHooks({
  resolve(specifier, context, next) {
    const r = next(specifier, context);
    resolved.push(r.url);
    return r;
  },
});
const loaded = (part: string) => resolved.some((u) => u.includes(part));

test('a LevelDB gateway never loads ioredis; finding the Redis store plugin does not either, opening a Redis store does', async (t) => {
  const { parseConfig } = await import('../../server/config/load.ts');
  const { createGateway } = await import('../../server/gateway.ts');
  const { createLogger } = await import('../../server/log.ts');
  const { findStore } = await import('../../server/open-store.ts');
  const dir = await mkdtemp(join(tmpdir(), 'gw-lazy-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'gateway.toml');
  const gw = await createGateway(parseConfig('[providers.mock]\nmodels = ["m"]\n', file, file, {}), createLogger('silent'));
  t.is(gw.storeKind.name, 'level');
  await gw.close();
  t.true(loaded('/plugins/stores/level/level.ts'), 'the LevelDB store was loaded');
  t.false(loaded('/node_modules/ioredis/'));
  t.false(loaded('/plugins/stores/redis/redis.ts'));

  const { found: redis } = await findStore(parseConfig('[store]\nurl = "redis://127.0.0.1:1/0"\n', file, file, {}));
  t.deepEqual([redis.plugin.name, redis.plugin.shared], ['redis', true]);
  t.false(loaded('/node_modules/ioredis/'), 'found, not opened: no ioredis');
  // opening it imports ioredis: against a server that refuses every command, it fails at once
  const refusing = createServer((socket) => socket.on('data', () => socket.write('-ERR refused by the test\r\n')));
  await new Promise<void>((r) => refusing.listen(0, '127.0.0.1', r));
  t.teardown(() => refusing.close());
  const url = `redis://127.0.0.1:${(refusing.address() as AddressInfo).port}/0`;
  await t.throwsAsync(async () => redis.plugin.open({ url, config: {}, dataDir: dir, log: createLogger('silent') }), {
    message: `cannot open the store [store] url = "${url}": ERR refused by the test`,
  });
  t.true(loaded('/node_modules/ioredis/'));
});
