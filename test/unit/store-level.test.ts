import test from 'ava';
// LevelDB-only behaviour; what every backend must do is in store-conformance.ts (run by store-conformance-level.test.ts).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openLevelStore } from '../../plugins/stores/level/level.ts';
import type { Store } from '../../lib/store/types.ts';

async function open(t: import('ava').ExecutionContext, dir?: string): Promise<{ store: Store; dir: string }> {
  const d = dir ?? (await mkdtemp(join(tmpdir(), 'gw-store-')));
  const store = await openLevelStore(d);
  t.teardown(async () => {
    await store.close().catch(() => undefined);
    if (!dir) await rm(d, { recursive: true, force: true });
  });
  return { store, dir: d };
}

test('windows survive a reopen; holds do not; entries and clear never see windows', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-store-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const now = Date.now();
  {
    const store = await openLevelStore(dir);
    const ns = store.namespace('a');
    await ns.windowAdmit('k', 2, 60_000, { now });
    await ns.windowAdmit('k', 2, 60_000, { now });
    await ns.windowAdd('tok', 7, 60_000, now);
    await ns.set('v', 'x');
    t.true((await ns.hold('h', '1', 5, { field: 'usd', limit: 6, ttlMs: 60_000 })).admitted);
    const seen: string[] = [];
    for await (const [k] of store.entries()) seen.push(k);
    t.deepEqual(seen, ['a:v']);
    await store.close();
  }
  const store = await openLevelStore(dir);
  t.teardown(() => store.close());
  const ns = store.namespace('a');
  t.false((await ns.windowAdmit('k', 2, 60_000, { now: now + 1 })).admitted);
  t.is((await ns.windowAdmit('tok', 100, 60_000, { cost: 0, now: now + 1 })).total, 7);
  t.is(await ns.held('h'), 0);
  await ns.clear();
  t.false((await ns.windowAdmit('k', 2, 60_000, { now: now + 2 })).admitted);
});

test('group commit: reads see queued writes, the last issued write wins, and everything is on disk after a reopen', async (t) => {
  const { store, dir } = await open(t);
  const s = store.namespace('ext:gc');
  const writes = Array.from({ length: 200 }, (_, i) => s.set('k', String(i)));
  // not awaited yet: a read must already see the newest queued value
  t.is(await s.get('k'), '199');
  const del = s.delete('gone');
  await s.set('gone', 'x');
  await Promise.all([...writes, del]);
  t.is(await s.get('k'), '199');
  const counts = await Promise.all(Array.from({ length: 100 }, () => s.incr('c', { n: 1 })));
  t.is(Math.max(...counts.map((c) => c.n!)), 100);
  await store.close();
  const reopened = await openLevelStore(dir);
  t.teardown(() => reopened.close());
  const r = reopened.namespace('ext:gc');
  t.is(await r.get('k'), '199');
  t.is(await r.get('gone'), 'x');
  t.deepEqual(await r.counters('c'), { n: 100 });
});

test('rings trim in range deletes now and then: never more than maxLen values read, on disk at most maxLen + 256', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-store-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const count = async (store: Store) => {
    let n = 0;
    for await (const _ of store.namespace('r').ringRead('log')) n++;
    return n;
  };
  const store = await openLevelStore(dir);
  for (let i = 0; i < 700; i++) await store.namespace('r').ringPush('log', `v${i}`, 50);
  t.is(await count(store), 50);
  const first = (await (async () => {
    for await (const e of store.namespace('r').ringRead('log')) return e;
  })())!;
  t.deepEqual(first, [700, 'v699']);
  await store.close();
  // a new process reads before it pushes: what the old one left (not yet trimmed) is trimmed on its first push
  const again = await openLevelStore(dir);
  t.teardown(() => again.close());
  t.true((await count(again)) <= 50 + 256);
  await again.namespace('r').ringPush('log', 'after', 50);
  t.is(await count(again), 50);
});

test('writes to one key coalesced in a group commit keep the last value (counters, buckets, values)', async (t) => {
  const { store } = await open(t);
  const ns = store.namespace('c');
  await Promise.all(Array.from({ length: 100 }, () => ns.incr('n', { a: 1 })));
  await Promise.all(Array.from({ length: 100 }, (_, i) => ns.bucketIncr('b', 1_000, 's', { a: i }, { bucketMs: 60_000, retentionMs: 1e12 })));
  await ns.set('v', '1');
  await Promise.all([ns.set('v', '2'), ns.delete('v'), ns.set('v', '3')]);
  t.deepEqual(await ns.counters('n'), { a: 100 });
  for await (const r of ns.buckets('b', 0, 60_000, 60_000)) t.deepEqual(r.counters, { a: 4950 });
  t.is(await ns.get('v'), '3');
});

/** The LevelDB view's memory hooks (not part of the Store interface). */
type Evicting = Store & { memory(): { counters: number; windows: number; holds: number; generations: number }; evictIdle(now?: number): void };

test('idle counters, windows and lapsed holds leave memory; what comes back from disk is exact', async (t) => {
  const { store } = await open(t);
  const root = store as Evicting;
  const s = store.namespace('idle');
  const now = Date.now();
  await Promise.all(Array.from({ length: 500 }, (_, i) => s.incr(`c${i}`, { n: i })));
  await Promise.all(Array.from({ length: 50 }, (_, i) => s.windowAdd(`w${i}`, 3, 60_000, now - 30_000)));
  t.true((await s.hold('h', '1', 1, { field: 'usd', limit: 10, ttlMs: 1 })).admitted);
  t.like(root.memory(), { counters: 501, windows: 50, holds: 1 }); // the hold read its counter too
  // one key stays in use: it must survive every sweep
  await s.incr('hot', { n: 1 });
  await s.windowAdmit('live', 10, 60_000, { now });
  await new Promise((r) => setTimeout(r, 5));
  root.evictIdle(now);
  await s.incr('hot', { n: 1 });
  await s.windowAdmit('live', 10, 60_000, { now: now + 1 });
  root.evictIdle(now + 31_000); // the w* windows are empty by then, 'live' is not
  t.like(root.memory(), { counters: 1, windows: 1, holds: 0 });
  // read back from disk: nothing lost, and updates go on from the disk's record
  t.deepEqual(await s.counters('c499'), { n: 499 });
  t.deepEqual(await s.incr('c7', { n: 1 }), { n: 8 });
  t.deepEqual(await s.counters('hot'), { n: 2 });
  t.is((await s.windowAdmit('live', 10, 60_000, { cost: 0, now: now + 2 })).total, 2);
  t.is((await s.windowAdmit('w3', 10, 60_000, { cost: 0, now: now + 31_000 })).total, 0);
});

test('a window kept in memory across many minutes of traffic stays small; entries that left it are gone from disk after a reopen', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-store-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const t0 = Date.now() - 10 * 60_000;
  {
    const store = await openLevelStore(dir);
    const s = store.namespace('rl');
    // ten minutes of 10 requests a second, limit never reached
    for (let ms = 0; ms < 10 * 60_000; ms += 100) await s.windowAdmit('r', 1e9, 60_000, { now: t0 + ms });
    t.is((await s.windowAdmit('r', 1e9, 60_000, { cost: 0, now: t0 + 10 * 60_000 - 1 })).total, 600);
    await store.close();
  }
  const store = await openLevelStore(dir);
  t.teardown(() => store.close());
  let onDisk = 0;
  for await (const _ of (store as unknown as { s: { db: { keys(o: object): AsyncIterable<string> } } }).s.db.keys({ gte: '\u0001w\u0000' })) onDisk++;
  t.true(onDisk <= 600 + 10 * 2, `${onDisk} window entries on disk`); // the window plus at most a trim interval
  t.is((await store.namespace('rl').windowAdmit('r', 1e9, 60_000, { cost: 0, now: t0 + 10 * 60_000 - 1 })).total, 600);
});

/** The number of keys on disk in the value space (not windows, buckets or rings). */
async function valuesOnDisk(store: Store): Promise<number> {
  const db = (store as unknown as { s: { db: { keys(o: object): AsyncIterable<string> } } }).s.db;
  let n = 0;
  for (const range of [{ lt: '\u0001' }, { gte: '\u0002' }]) for await (const _ of db.keys(range)) n++;
  return n;
}

test('the sweep deletes expired TTL values of every namespace from disk; a root clear empties every namespace', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-store-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  {
    const store = await openLevelStore(dir);
    await Promise.all(Array.from({ length: 50 }, (_, i) => store.namespace('cache').set(`k${i}`, 'v', { ttlMs: 1 })));
    await store.namespace('cache').set('kept', 'v', { ttlMs: 60_000 });
    await store.namespace('other').set('plain', 'v');
    await store.close();
  }
  await new Promise((r) => setTimeout(r, 5));
  const store = await openLevelStore(dir); // opening sweeps
  t.teardown(() => store.close());
  t.is(await valuesOnDisk(store), 2);
  t.is(await store.namespace('cache').get('kept'), 'v');
  await store.clear();
  t.is(await valuesOnDisk(store), 0);
  t.is(await store.namespace('other').get('plain'), undefined);
});

test('reads skip LevelDB for keys never written, and never miss one: written before a reopen, or while a sweep runs', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-store-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  {
    const store = await openLevelStore(dir);
    await Promise.all(Array.from({ length: 300 }, (_, i) => store.namespace('a').set(`old${i}`, String(i))));
    await store.namespace('a').incr('c', { n: 3 });
    await store.close();
  }
  const store = await openLevelStore(dir);
  t.teardown(() => store.close());
  const a = store.namespace('a');
  const sweep = (store as unknown as { s: { sweep(): Promise<void> } }).s.sweep();
  const during = Array.from({ length: 300 }, (_, i) => a.set(`new${i}`, String(i)));
  await Promise.all([sweep, ...during]);
  for (let i = 0; i < 300; i++) {
    t.is(await a.get(`old${i}`), String(i));
    t.is(await a.get(`new${i}`), String(i));
  }
  t.deepEqual(await a.counters('c'), { n: 3 });
  t.is(await a.get('never'), undefined);
});

test('a key deleted and then written in the same batch is found after the batch lands (the filter learns it from the put)', async (t) => {
  const { store } = await open(t);
  const s = store.namespace('f');
  const del = s.delete('fresh'); // never written: its queued delete must not stand in for the put
  const set = s.set('fresh', 'v');
  const put2 = s.set('fresh', 'w'); // already queued as a put: no second filter add
  await Promise.all([del, set, put2]);
  t.is(await s.get('fresh'), 'w');
  await s.incr('c', { n: 1 });
  await Promise.all([s.incr('c', { n: 1 }), s.incr('c', { n: 1 })]);
  t.deepEqual(await s.counters('c'), { n: 3 });
});

test('a counter update whose write fails is as if never made: the memory copy is dropped and the disk record is read again', async (t) => {
  const { store } = await open(t);
  const s = store.namespace('fail');
  t.deepEqual(await s.incr('spend', { usd: 1 }), { usd: 1 });
  // the one process-wide LevelDB handle behind every view
  const db = (store as unknown as { s: { db: { batch: (...a: unknown[]) => Promise<void> } } }).s.db;
  const batch = db.batch;
  db.batch = () => Promise.reject(new Error('disk full'));
  await t.throwsAsync(s.incr('spend', { usd: 5 }), { message: 'disk full' });
  db.batch = batch;
  t.deepEqual(await s.counters('spend'), { usd: 1 }, 'the failed +5 is not in force');
  t.deepEqual(await s.incr('spend', { usd: 2 }), { usd: 3 });
});

/** The LevelDB internals these tests reach: the one database handle and the sweep. */
type Internals = {
  s: {
    db: { keys(o: object): AsyncIterable<string>; getMany(keys: string[]): Promise<Array<string | undefined>>; put(k: string, v: string): Promise<void> };
    sweep(now?: number): Promise<void>;
  };
};
const internals = (store: Store) => (store as unknown as Internals).s;

/** Expiry index entries on disk. */
async function indexOnDisk(store: Store): Promise<number> {
  let n = 0;
  for await (const _ of internals(store).db.keys({ gte: '\u0001e\u0000', lt: '\u0001e\u0001' })) n++;
  return n;
}

test('a sweep reads only the expired values, through the expiry index, and deletes them and their index entries', async (t) => {
  const { store } = await open(t);
  const cache = store.namespace('cache');
  await Promise.all(Array.from({ length: 50 }, (_, i) => cache.set(`k${i}`, 'v', { ttlMs: 1 })));
  await cache.set('kept', 'v', { ttlMs: 60_000 });
  await store.namespace('other').set('plain', 'v');
  t.is(await indexOnDisk(store), 51);
  const db = internals(store).db;
  const read: string[] = [];
  const getMany = db.getMany.bind(db);
  db.getMany = (keys) => {
    read.push(...keys);
    return getMany(keys);
  };
  await new Promise((r) => setTimeout(r, 5));
  await internals(store).sweep();
  t.deepEqual(read.sort(), Array.from({ length: 50 }, (_, i) => `cache:k${i}`).sort(), 'neither the live TTL value nor the plain one is read');
  t.is(await valuesOnDisk(store), 2);
  t.is(await indexOnDisk(store), 1);
  t.is(await cache.get('kept'), 'v');
});

test('a value set again while the sweep reads it is kept, and so is one set again without a TTL', async (t) => {
  const { store } = await open(t);
  const cache = store.namespace('cache');
  await cache.set('raced', 'old', { ttlMs: 1 });
  await cache.set('plain', 'old', { ttlMs: 1 });
  await cache.set('plain', 'now plain');
  const db = internals(store).db;
  const getMany = db.getMany.bind(db);
  db.getMany = async (keys) => {
    const raws = await getMany(keys); // the expired value…
    await cache.set('raced', 'fresh', { ttlMs: 60_000 }); // …replaced before the sweep decides
    return raws;
  };
  await new Promise((r) => setTimeout(r, 5));
  await internals(store).sweep();
  t.is(await cache.get('raced'), 'fresh');
  t.is(await cache.get('plain'), 'now plain');
  t.is(await valuesOnDisk(store), 2);
});

test('a sweep whose read fails deletes nothing and leaves no key marked; the next sweep deletes what expired', async (t) => {
  const { store } = await open(t);
  const cache = store.namespace('cache');
  await Promise.all(Array.from({ length: 20 }, (_, i) => cache.set(`k${i}`, 'v', { ttlMs: 1 })));
  const s = internals(store) as ReturnType<typeof internals> & { sweeping: Set<string> };
  const getMany = s.db.getMany;
  s.db.getMany = () => Promise.reject(new Error('read failed'));
  await new Promise((r) => setTimeout(r, 5));
  await t.throwsAsync(s.sweep(), { message: 'read failed' });
  t.is(s.sweeping.size, 0);
  t.is(await valuesOnDisk(store), 20);
  t.is(await indexOnDisk(store), 20);
  s.db.getMany = getMany;
  await s.sweep();
  t.is(await valuesOnDisk(store), 0);
  t.is(await indexOnDisk(store), 0);
});

test('a store written before the expiry index is indexed once at open; its TTL values are then swept', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-store-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  // more than one of the open's write batches (1,000 ops) of each kind
  const n = 1_500;
  {
    // the old layout: TTL values with no index entry, and no mark that the store is indexed
    const store = await openLevelStore(dir);
    const db = internals(store).db as unknown as {
      batch(ops: Array<{ type: 'put' | 'del'; key: string; value?: string }>): Promise<void>;
    };
    const ops: Array<{ type: 'put' | 'del'; key: string; value?: string }> = [{ type: 'del', key: '\u0001m\u0000expiry-index' }];
    for (let i = 0; i < n; i++) {
      ops.push({ type: 'put', key: `cache:old${i}`, value: `\u0000${Date.now() + 60_000}\u0000v` });
      ops.push({ type: 'put', key: `cache:older${i}`, value: `\u0000${Date.now() - 1}\u0000v` });
    }
    await db.batch(ops);
    await store.close();
  }
  const store = await openLevelStore(dir);
  t.teardown(() => store.close());
  t.is(await valuesOnDisk(store), n, 'the values that expired while gw was down are deleted at open');
  t.is(await indexOnDisk(store), n);
  t.is(await store.namespace('cache').get('old0'), 'v');
  t.is(await store.namespace('cache').get(`old${n - 1}`), 'v');
  t.is(await store.namespace('cache').get('older0'), undefined);
  await internals(store).sweep(Date.now() + 61_000);
  t.is(await valuesOnDisk(store), 0);
  t.is(await indexOnDisk(store), 0);
});

test('expired keys leave the key filters with their expiry generation; keys that live on stay readable', async (t) => {
  const { store } = await open(t);
  const root = store as Evicting;
  const s = store.namespace('g');
  const now = Date.now();
  await Promise.all(Array.from({ length: 100 }, (_, i) => s.set(`short${i}`, 'v', { ttlMs: 1_000 })));
  await s.set('long', 'v', { ttlMs: 3_600_000 });
  // queued with a TTL, then plain in the same batch: the plain put must reach the long-lived filter
  const a = s.set('both', 'ttl', { ttlMs: 1_000 });
  const b = s.set('both', 'plain');
  await Promise.all([a, b]);
  const before = root.memory().generations;
  t.true(before >= 2, `${before} generations`);
  await internals(store).sweep(now + 5 * 60_000);
  t.is(root.memory().generations, before - 1);
  t.is(await s.get('long'), 'v');
  t.is(await s.get('both'), 'plain');
  t.is(await valuesOnDisk(store), 2);
});

test('listings wait for the writes issued before them, not for a busy queue to go idle', async (t) => {
  const { store } = await open(t);
  const s = store.namespace('busy');
  await s.set('listed', 'v');
  // a steady writer, one counter update per event-loop turn, bounded
  let n = 0;
  let running = true;
  const tick = () => {
    if (n >= 100_000) {
      running = false;
      return;
    }
    void s.incr(`c${n % 20}`, { n: 1 });
    n++;
    setImmediate(tick);
  };
  tick();
  t.teardown(() => {
    n = 100_000;
  });
  await new Promise((r) => setTimeout(r, 50));
  const seen: string[] = [];
  for await (const [k] of s.entries('listed')) seen.push(k);
  t.deepEqual(seen, ['listed']);
  t.true(running, `the listing waited for all ${n} writes`);
  n = 100_000;
  await new Promise((r) => setTimeout(r, 20));
});

test('a sweep compacts the store once as many TTL values were deleted since the last compaction as live (and at least 10,000)', async (t) => {
  const { store } = await open(t);
  const cache = store.namespace('cache');
  const db = internals(store).db as unknown as { compactRange(a: string, b: string): Promise<void> };
  let compactions = 0;
  const compactRange = db.compactRange.bind(db);
  db.compactRange = (a, b) => {
    compactions++;
    return compactRange(a, b);
  };
  // each sweep a minute ahead: the 1 ms values' generation has ended, the others are an hour away
  const many = (n: number, from: number, ttlMs: number) =>
    Promise.all(Array.from({ length: n }, (_, i) => cache.set(`k${from + i}`, 'v'.repeat(100), { ttlMs })));
  await many(9_000, 0, 1);
  await many(12_000, 100_000, 3_600_000);
  await internals(store).sweep(Date.now() + 61_000);
  t.is(compactions, 0, '9,000 deleted: below the minimum');
  await many(2_000, 200_000, 1);
  await internals(store).sweep(Date.now() + 61_000);
  t.is(compactions, 0, '11,000 deleted, 12,000 live: below the live count');
  await many(1_500, 300_000, 1);
  await internals(store).sweep(Date.now() + 61_000);
  t.is(compactions, 1);
  await internals(store).sweep(Date.now() + 61_000);
  t.is(compactions, 1, 'the count starts again after a compaction');
  t.is(await valuesOnDisk(store), 12_000);
  t.is(await cache.get('k100000'), 'v'.repeat(100));
});

test('LevelDB is never handed an empty value (classic-level leaks native memory for each); empty values read back as empty, after a reopen too', async (t) => {
  const { store, dir } = await open(t);
  const db = (store as unknown as { s: { db: { batch(ops: Array<{ type: string; value?: string }>, o?: object): Promise<void> } } }).s.db;
  const batch = db.batch.bind(db);
  const written: Array<{ type: string; value?: string }> = [];
  db.batch = (ops, o) => {
    written.push(...ops);
    return batch(ops, o);
  };
  const ns = store.namespace('e');
  // a TTL value (its expiry index entry), an empty TTL value, an empty plain value, an empty ring value
  await ns.set('ttl', 'v', { ttlMs: 60_000 });
  await ns.set('emptyTtl', '', { ttlMs: 60_000 });
  await ns.set('empty', '');
  await ns.ringPush('ring', '', 10);
  t.true(written.length >= 4);
  t.deepEqual(
    written.filter((op) => op.type === 'put' && op.value === ''),
    [],
  );
  t.is(await ns.get('empty'), '');
  t.is(await ns.get('emptyTtl'), '');
  t.deepEqual(await collect(ns.ringRead('ring')), [[1, '']]);
  const listed = new Map(await collect(ns.entries()));
  t.is(listed.get('empty'), '');
  t.is(listed.get('emptyTtl'), '');
  await store.close();

  const reopened = await openLevelStore(dir);
  t.teardown(() => reopened.close());
  const again = reopened.namespace('e');
  t.is(await again.get('empty'), '', 'an empty plain value is not taken for an expired TTL value at open');
  t.is(await again.get('emptyTtl'), '');
  t.is(await again.get('ttl'), 'v');
  t.deepEqual(await collect(again.ringRead('ring')), [[1, '']]);
  // the sweep still finds the TTL values through their index entries
  await (reopened as unknown as Internals).s.sweep(Date.now() + 61_000);
  t.is(await again.get('ttl'), undefined);
  t.is(await again.get('emptyTtl'), undefined);
  t.is(await again.get('empty'), '');
  t.is(await indexOnDisk(reopened), 0);
});

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}
