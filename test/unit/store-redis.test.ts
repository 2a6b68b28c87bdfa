/**
 * The store contract (store-conformance.ts) on the Redis backend, against a real
 * redis-server (test/helpers/redis.ts), plus what only Redis has: several clients at once,
 * server time, startup and runtime faults.
 */
import test from 'ava';
import { Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import { GatewayError } from '../../core/errors.ts';
import { redactUrl } from '../../lib/redact.ts';
import { openRedisStore } from '../../plugins/stores/redis/redis.ts';
import type { Store } from '../../lib/store/types.ts';
import { haveRedisServer, redisFor, startRedis, type TestRedis } from '../helpers/redis.ts';
import { storeConformance } from './store-conformance.ts';

/** One redis-server for the conformance cases of this file; each case gets its own database. */
let shared: Promise<TestRedis> | undefined;
let nextDb = 0;
test.after.always(async () => {
  if (shared) await (await shared).stop();
});

storeConformance(test, 'redis', async (t) => {
  if (!haveRedisServer()) return redisFor(t) as Promise<undefined>;
  shared ??= startRedis();
  const r = await shared;
  const db = nextDb++;
  if (db > 15) throw new Error('more conformance cases than Redis databases: give them their own redis-server');
  const url = `redis://127.0.0.1:${r.port}/${db}`;
  const open: Store[] = [];
  const track = async () => {
    const s = await openRedisStore(url);
    open.push(s);
    return s;
  };
  t.teardown(async () => {
    for (const s of open) await s.close().catch(() => undefined);
  });
  const first = await track();
  let current = first;
  return {
    store: first,
    async reopen() {
      await current.close();
      current = await track();
      return current;
    },
    another: track,
  };
});

test('redis: two clients share windows, holds and counters exactly', async (t) => {
  const r = await redisFor(t);
  if (!r) return;
  const clients = await Promise.all([1, 2, 3].map(() => openRedisStore(r.url)));
  t.teardown(() => Promise.all(clients.map((c) => c.close())));
  const ns = clients.map((c) => c.namespace('ext:rate_limit'));
  const vs = await Promise.all(Array.from({ length: 90 }, (_, i) => ns[i % 3]!.windowAdmit('r:k', 40, 60_000)));
  t.is(vs.filter((v) => v.admitted).length, 40);
  const hs = await Promise.all(Array.from({ length: 30 }, (_, i) => ns[i % 3]!.hold('b', `h${i}`, 1, { field: 'usd', limit: 5, ttlMs: 60_000 })));
  t.is(hs.filter((v) => v.admitted).length, 5);
  await Promise.all(Array.from({ length: 300 }, (_, i) => ns[i % 3]!.incr('c', { n: 1 })));
  t.deepEqual(await ns[1]!.counters('c'), { n: 300 });
});

test('redis: holds of a client that closed (or died) are dropped; its live holds count meanwhile', async (t) => {
  const r = await redisFor(t);
  if (!r) return;
  const a = await openRedisStore(r.url);
  const b = await openRedisStore(r.url);
  t.teardown(() => b.close());
  const opts = { field: 'usd', limit: 2, ttlMs: 3_600_000 };
  t.true((await a.hold('k', 'a1', 1.5, opts)).admitted);
  t.deepEqual(await b.hold('k', 'b1', 1, opts), { admitted: true, value: 0, held: 1.5 });
  t.false((await b.hold('k', 'b2', 1, opts)).admitted);
  await a.close(); // its liveness key goes with it
  t.is(await b.held('k'), 1);
  t.true((await b.hold('k', 'b2', 0.5, opts)).admitted);
});

test('redis: holds keep running sums per owner: exact over thousands in flight and any release order; holds an earlier gw wrote without sums still count', async (t) => {
  const r = await redisFor(t);
  if (!r) return;
  const clients = await Promise.all([1, 2, 3].map(() => openRedisStore(r.url)));
  t.teardown(() => Promise.all(clients.map((c) => c.close())));
  const raw = new Redis(r.url);
  t.teardown(() => raw.quit());
  const opts = { field: 'usd', limit: 1e9, ttlMs: 3_600_000 };
  const amount = (i: number) => (i % 7) * 0.001 + 0.0005;
  await Promise.all(Array.from({ length: 3000 }, (_, i) => clients[i % 3]!.hold('many', `h${i}`, amount(i), opts)));
  let expected = 0;
  for (let i = 0; i < 3000; i++) expected += amount(i);
  t.true(Math.abs((await clients[0]!.held('many')) - expected) < 1e-9);
  // every other hold goes, settled or released, from whichever client
  await Promise.all(
    Array.from({ length: 1500 }, (_, j) => {
      const i = 2 * j;
      expected -= amount(i);
      return j % 2 ? clients[i % 3]!.release('many', `h${i}`) : clients[i % 3]!.settle('many', `h${i}`, { usd: 0 });
    }),
  );
  t.true(Math.abs((await clients[1]!.held('many')) - expected) < 1e-9);
  const sums = await raw.hgetall('gw:hs:many');
  t.is(
    Object.keys(sums)
      .filter((f) => f.startsWith('n:'))
      .reduce((n, f) => n + Number(sums[f]), 0),
    1500,
  );
  t.is(await raw.hlen('gw:ha:many'), 1500);
  await Promise.all(Array.from({ length: 1500 }, (_, j) => clients[(2 * j + 1) % 3]!.release('many', `h${2 * j + 1}`)));
  t.is(await clients[2]!.held('many'), 0);
  t.is(await raw.exists('gw:hx:many', 'gw:ha:many', 'gw:hs:many'), 0, 'the keys go with the last hold');

  // an earlier gw's holds: zset and hash, no sums; owner '' never expires by liveness
  const far = Date.now() + 3_600_000;
  await raw.zadd('gw:hx:old', far, '/o1', far, '/o2');
  await raw.hset('gw:ha:old', '/o1', '0.25|', '/o2', '0.5|');
  t.is(await clients[0]!.held('old'), 0.75);
  t.deepEqual(await clients[1]!.hold('old', 'new', 0.125, { field: 'usd', limit: 1, ttlMs: 60_000 }), { admitted: true, value: 0, held: 0.75 });
  await raw.zrem('gw:hx:old', '/o1');
  await raw.hdel('gw:ha:old', '/o1'); // the earlier gw released its hold: the counts disagree, the sums are rebuilt
  t.is(await clients[2]!.held('old'), 0.625);
});

test('redis: window time is the server clock, whatever the client clock says', async (t) => {
  const r = await redisFor(t);
  if (!r) return;
  const s = await openRedisStore(r.url);
  t.teardown(() => s.close());
  const raw = new Redis(r.url);
  t.teardown(() => raw.disconnect());
  await s.namespace('x').windowAdmit('w', 5, 60_000);
  const [sec] = await raw.time();
  const [, score] = await raw.zrange('gw:w:x:w', '0', '-1', 'WITHSCORES');
  t.true(Math.abs(Number(score) - Number(sec) * 1000) < 2000);
  t.is(await raw.get('gw:wt:x:w'), '1');
  // the window's TTL (60 s), read back a moment later: seconds may pass on a loaded machine
  t.true((await raw.pttl('gw:w:x:w')) > 50_000);
});

test('redis: unreachable at start → error naming [store] and the URL without its password, within the start deadline', async (t) => {
  if (!haveRedisServer() && !process.env.CI) return t.pass();
  const r = await startRedis();
  const port = r.port;
  await r.stop(); // a port nothing listens on
  const url = `redis://:hunter2-secret@127.0.0.1:${port}/0`;
  const t0 = Date.now();
  const err = await t.throwsAsync(openRedisStore(url));
  t.true(Date.now() - t0 < 15_000);
  t.regex(err!.message, /^cannot open the store \[store\] url = "redis:\/\/:\*\*\*@127\.0\.0\.1:\d+\/0": /);
  t.notRegex(err!.message, /hunter2/);
  t.is(redactUrl('redis://user:pw@h:1/2'), 'redis://user:***@h:1/2');
  t.is(redactUrl('redis://h:1/2'), 'redis://h:1/2');
});

test('redis: wrong password fails at once with the reason', async (t) => {
  const r = await redisFor(t);
  if (!r) return;
  const raw = new Redis(r.url);
  await raw.config('SET', 'requirepass', 'right-password');
  raw.disconnect();
  const t0 = Date.now();
  const err = await t.throwsAsync(openRedisStore(`redis://:wrong-password@127.0.0.1:${r.port}/0`));
  t.true(Date.now() - t0 < 2000, `took ${Date.now() - t0} ms`);
  t.regex(err!.message, /\[store\].*(WRONGPASS|invalid|NOAUTH)/);
  t.notRegex(err!.message, /wrong-password/);
  const ok = await openRedisStore(`redis://:right-password@127.0.0.1:${r.port}/0`);
  await ok.set('x', '1');
  await ok.close();
});

test('redis: lost while serving → 503 store_unavailable fast (stopped) or within 2 s (frozen); back within seconds', async (t) => {
  const r = await redisFor(t);
  if (!r) return;
  const s = await openRedisStore(r.url);
  t.teardown(() => s.close());
  await s.set('k', 'v');

  r.pause(); // frozen: connections open, no answers
  let t0 = Date.now();
  const frozen = await t.throwsAsync(s.windowAdmit('w', 10, 60_000));
  const waited = Date.now() - t0;
  t.true(frozen instanceof GatewayError);
  t.is((frozen as GatewayError).status, 503);
  t.is((frozen as GatewayError).code, 'store_unavailable');
  t.regex(frozen!.message, /the store is unavailable: Redis at redis:\/\/127\.0\.0\.1:\d+\/0: no answer within 2 s/);
  t.true(waited >= 1900 && waited < 3000, `waited ${waited} ms`);
  r.resume();
  t.is(await s.get('k'), 'v');

  await r.kill(); // gone: refused at once
  t0 = Date.now();
  for (const op of [
    () => s.get('k'),
    () => s.incr('c', { n: 1 }),
    () => s.hold('b', '1', 1, { field: 'usd', limit: 5, ttlMs: 1000 }),
    () => s.withLock('l', async () => 1),
  ]) {
    const e = await t.throwsAsync(op());
    t.is((e as GatewayError).code, 'store_unavailable');
  }
  t.true(Date.now() - t0 < 2500);

  await r.restart();
  t0 = Date.now();
  for (;;) {
    try {
      await s.set('k', 'back');
      break;
    } catch (err) {
      t.is((err as GatewayError).code, 'store_unavailable');
      if (Date.now() - t0 > 10_000) throw new Error('no service 10 s after Redis returned');
      await sleep(100);
    }
  }
  t.log(`service resumed ${Date.now() - t0} ms after redis-server was back`);
  t.is(await s.get('k'), 'back');
  t.true((await s.windowAdmit('w', 10, 60_000)).admitted); // scripts reloaded after the restart
});

/** A TCP proxy to Redis that can be cut (a network partition: Redis keeps its data). */
async function proxyTo(port: number) {
  const { createServer, connect } = await import('node:net');
  let up = true;
  const sockets = new Set<import('node:net').Socket>();
  const server = createServer((client) => {
    if (!up) return client.destroy();
    const upstream = connect(port, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `redis://127.0.0.1:${(server.address() as import('node:net').AddressInfo).port}/0`,
    cut() {
      up = false;
      for (const s of sockets) s.destroy();
    },
    heal() {
      up = true;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

test('redis: a hold whose release failed during a partition is released once Redis is reachable again', async (t) => {
  const r = await redisFor(t);
  if (!r) return;
  const proxy = await proxyTo(r.port);
  t.teardown(() => proxy.close());
  const s = await openRedisStore(proxy.url);
  t.teardown(() => s.close());
  const watcher = await openRedisStore(r.url);
  t.teardown(() => watcher.close());
  const opts = { field: 'usd', limit: 10, ttlMs: 3_600_000 };
  t.true((await s.hold('k', 'a', 4, opts)).admitted);
  t.true((await s.hold('k', 'b', 3, opts)).admitted);
  t.is(await watcher.held('k'), 7);
  proxy.cut();
  t.is(((await t.throwsAsync(s.release('k', 'a'))) as GatewayError).code, 'store_unavailable');
  t.is(((await t.throwsAsync(s.settle('k', 'b', { usd: 3 }))) as GatewayError).code, 'store_unavailable');
  t.is(await watcher.held('k'), 7); // Redis kept them: the instance is alive
  proxy.heal();
  const t0 = Date.now();
  while ((await watcher.held('k')) !== 0) {
    if (Date.now() - t0 > 8000) return t.fail('orphaned holds still there 8 s after the partition healed');
    await sleep(50);
  }
  t.log(`orphaned holds released ${Date.now() - t0} ms after the partition healed`);
  t.deepEqual(await watcher.counters('k'), {}); // the failed settle charged nothing
});

test('redis: holds of an instance that crashed lapse with its liveness key (15 s without heartbeat), not their own TTL', async (t) => {
  const r = await redisFor(t);
  if (!r) return;
  const raw = new Redis(r.url);
  t.teardown(() => raw.disconnect());
  const crashed = await openRedisStore(r.url);
  const [live] = await raw.keys('gw:i:*');
  t.true((await raw.pttl(live!)) > 10_000);
  const other = await openRedisStore(r.url);
  t.teardown(async () => {
    await other.close();
    await crashed.close().catch(() => undefined);
  });
  t.true((await crashed.hold('k', '1', 5, { field: 'usd', limit: 5, ttlMs: 3_600_000 })).admitted);
  t.false((await other.hold('k', '1', 5, { field: 'usd', limit: 5, ttlMs: 3_600_000 })).admitted);
  await raw.del(live!); // what 15 s without a heartbeat does
  t.is(await other.held('k'), 0);
  t.true((await other.hold('k', '1', 5, { field: 'usd', limit: 5, ttlMs: 3_600_000 })).admitted);
});
