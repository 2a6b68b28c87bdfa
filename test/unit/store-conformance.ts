/**
 * The store contract (lib/store/types.ts) as one set of test cases, run against every
 * backend: store-conformance-level.test.ts (LevelDB) and store-redis.test.ts (Redis).
 * A backend that passes these is interchangeable for every plugin.
 */
import type { ExecutionContext, TestFn } from 'ava';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Store } from '../../lib/store/types.ts';

/** One test's store: empty at start, closed at teardown. */
export interface Opened {
  store: Store;
  /** Closes this store (as a process exit would) and opens the same data again. */
  reopen(): Promise<Store>;
  /** A second, simultaneous client of the same data (another gw instance); absent for single-process backends. */
  another?(): Promise<Store>;
}

/** How to get a fresh store of one backend; undefined = the test skipped itself. */
export type OpenStore = (t: ExecutionContext) => Promise<Opened | undefined>;

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const e of it) out.push(e);
  return out;
}

const HOUR = 3_600_000;

/** Registers the conformance cases for one backend, titled `<name>: …`. */
export function storeConformance(test: TestFn, name: string, open: OpenStore): void {
  const it = (title: string, fn: (t: ExecutionContext, o: Opened) => Promise<void>) =>
    test(`${name}: ${title}`, async (t) => {
      const o = await open(t);
      if (o) await fn(t, o);
    });

  it('values: get/set/delete; TTL values expire; namespaces are isolated and nest', async (t, { store }) => {
    const a = store.namespace('a');
    const b = store.namespace('b');
    t.is(await a.get('x'), undefined);
    await a.set('x', '1');
    await b.set('x', '2');
    t.is(await a.get('x'), '1');
    t.is(await b.get('x'), '2');
    t.is(await store.get('a:x'), '1'); // a namespace is a key prefix
    t.is(await a.namespace('n').get('y'), undefined);
    await a.namespace('n').set('y', 'deep');
    t.is(await store.get('a:n:y'), 'deep');
    await a.delete('x');
    t.is(await a.get('x'), undefined);
    await a.delete('never-there');
    // TTLs and windows here are well above a busy machine's gap between two calls (60 ms was seen to lapse in between)
    await a.set('ttl', 'soon gone', { ttlMs: 300 });
    await a.set('keep', 'v', { ttlMs: 60_000 });
    t.is(await a.get('ttl'), 'soon gone');
    await sleep(400);
    t.is(await a.get('ttl'), undefined);
    t.is(await a.get('keep'), 'v');
    await a.set('keep', 'plain'); // set without TTL: no longer expires
    t.is(await a.get('keep'), 'plain');
    t.deepEqual(await collect(a.entries('t')), []); // expired entries are not listed
  });

  it('entries: key order, prefix relative to the namespace, counters as JSON, glob characters literal', async (t, { store }) => {
    const ns = store.namespace('ext:x');
    await store.namespace('ext:other').set('p:1', 'not mine');
    for (const k of ['p:b', 'p:a', 'p:c', 'q:a', 'p*', 'p?', 'p[1]', 'p\\z']) await ns.set(k, `v${k}`);
    await ns.incr('p:n', { a: 1, b: 2.5 });
    const all = await collect(ns.entries());
    t.deepEqual(
      all.map(([k]) => k),
      ['p*', 'p:a', 'p:b', 'p:c', 'p:n', 'p?', 'p[1]', 'p\\z', 'q:a'],
    );
    const p = await collect(ns.entries('p:'));
    t.deepEqual(
      p.map(([k]) => k),
      ['p:a', 'p:b', 'p:c', 'p:n'],
    );
    t.is(p[0]![1], 'vp:a');
    t.deepEqual(JSON.parse(p[3]![1]), { a: 1, b: 2.5 });
    t.deepEqual(
      (await collect(ns.entries('p*'))).map(([k]) => k),
      ['p*'],
    );
    t.deepEqual(
      (await collect(ns.entries('p['))).map(([k]) => k),
      ['p[1]'],
    );
    t.deepEqual(
      (await collect(ns.entries('p\\'))).map(([k]) => k),
      ['p\\z'],
    );
    t.deepEqual(await collect(ns.entries('zzz')), []);
    t.deepEqual(
      (await collect(store.entries('ext:'))).map(([k]) => k).filter((k) => k.startsWith('ext:other')),
      ['ext:other:p:1'],
    );
  });

  it('clear: only under the prefix, values and counters, other namespaces untouched', async (t, { store }) => {
    const ns = store.namespace('c');
    await ns.set('a:1', 'x');
    await ns.set('a:2', 'y', { ttlMs: 60_000 });
    await ns.incr('a:n', { n: 1 });
    await ns.set('b:1', 'z');
    await store.namespace('d').set('a:1', 'other');
    await ns.clear('a:');
    t.deepEqual(
      (await collect(ns.entries())).map(([k]) => k),
      ['b:1'],
    );
    t.deepEqual(await ns.counters('a:n'), {});
    await ns.clear();
    t.deepEqual(await collect(ns.entries()), []);
    t.is(await store.namespace('d').get('a:1'), 'other');
    await ns.clear(); // empty: fine
  });

  it('counters: incr returns the record, never loses concurrent updates, fractional deltas', async (t, { store }) => {
    const a = store.namespace('a');
    t.deepEqual(await a.counters('c'), {});
    t.deepEqual(await a.incr('c', { n: 1 }), { n: 1 });
    await Promise.all(Array.from({ length: 200 }, () => a.incr('c', { n: 1, m: 2 })));
    t.deepEqual(await a.counters('c'), { n: 201, m: 400 });
    await Promise.all(Array.from({ length: 8 }, () => a.incr('usd', { usd: 0.125 })));
    t.deepEqual(await a.counters('usd'), { usd: 1 });
    await a.incr('usd', { usd: 0.1 });
    t.true(Math.abs((await a.counters('usd')).usd! - 1.1) < 1e-12);
    t.deepEqual(await store.namespace('b').counters('c'), {});
  });

  it('windowAdmit: exact under concurrency, sliding, retry-after from the oldest entry', async (t, { store }) => {
    const w = store.namespace('ext:rl');
    const now = 1_000_000;
    const verdicts = await Promise.all(Array.from({ length: 25 }, () => w.windowAdmit('k', 10, 60_000, { now })));
    t.is(verdicts.filter((v) => v.admitted).length, 10);
    const refused = verdicts.find((v) => !v.admitted)!;
    t.is(refused.total, 10);
    t.is(refused.retryAfterMs, 60_000);
    t.false((await w.windowAdmit('k', 10, 60_000, { now: now + 59_999 })).admitted);
    const later = await w.windowAdmit('k', 10, 60_000, { now: now + 60_000 });
    t.true(later.admitted);
    t.is(later.total, 0);
    t.true((await w.windowAdmit('other', 10, 60_000, { now })).admitted);
  });

  it('windowAdmit: cost 0 and pending; windowAdd; partial expiry keeps the total exact', async (t, { store }) => {
    const s = store.namespace('w');
    await s.windowAdd('t', 40, 60_000, 1000);
    await s.windowAdd('t', 50, 60_000, 2000);
    let v = await s.windowAdmit('t', 100, 60_000, { cost: 0, now: 3000 });
    t.deepEqual(v, { admitted: true, total: 90, retryAfterMs: 0 });
    v = await s.windowAdmit('t', 100, 60_000, { cost: 0, pending: 15, now: 3000 });
    t.false(v.admitted);
    t.is(v.retryAfterMs, 58_000); // once the 40 at t=1000 leaves: 50 + 15 < 100
    v = await s.windowAdmit('t', 100, 60_000, { cost: 0, pending: 120, now: 3000 });
    t.is(v.retryAfterMs, 60_000);
    t.is((await s.windowAdmit('t', 100, 60_000, { cost: 0, now: 3000 })).total, 90); // cost 0 recorded nothing
    t.is((await s.windowAdmit('t', 100, 60_000, { cost: 0, now: 61_000 })).total, 50); // the 40 left (at or before now - window)
    await s.windowAdmit('t', 100, 60_000, { cost: 7, now: 61_500 });
    t.is((await s.windowAdmit('t', 100, 60_000, { cost: 0, now: 62_000 })).total, 7);
    t.is((await s.windowAdmit('t', 100, 60_000, { cost: 0, now: 200_000 })).total, 0);
  });

  it('windowAdmit on real time: parallel callers never exceed the limit', async (t, { store }) => {
    const s = store.namespace('rt');
    const vs = await Promise.all(Array.from({ length: 60 }, () => s.windowAdmit('r', 17, 60_000)));
    t.is(vs.filter((v) => v.admitted).length, 17);
    const refused = vs.filter((v) => !v.admitted);
    t.true(refused.every((v) => v.retryAfterMs > 0 && v.retryAfterMs <= 60_000));
    await Promise.all(Array.from({ length: 10 }, () => s.windowAdd('tok', 3, 60_000)));
    t.is((await s.windowAdmit('tok', 1000, 60_000, { cost: 0 })).total, 30);
    // a short window slides on its own
    t.true((await s.windowAdmit('short', 1, 300)).admitted);
    t.false((await s.windowAdmit('short', 1, 300)).admitted);
    await sleep(400);
    t.true((await s.windowAdmit('short', 1, 300)).admitted);
  });

  it('holds: refused when value + other holds >= limit; settle commits and drops atomically; release idempotent; holds lapse', async (t, { store }) => {
    const s = store.namespace('ext:budget');
    const opts = { field: 'usd', limit: 3, ttlMs: 60_000 };
    const vs = await Promise.all(Array.from({ length: 10 }, (_, i) => s.hold('k', String(i), 1, opts)));
    t.is(vs.filter((v) => v.admitted).length, 3); // the 4th sees 3 held: 0 + 3 >= 3
    t.is(await s.held('k'), 3);
    const ids = vs.map((v, i) => (v.admitted ? String(i) : undefined)).filter((x) => x !== undefined);
    const rec = await s.settle('k', ids[0]!, { usd: 0.5 });
    t.deepEqual(rec, { usd: 0.5 });
    t.is(await s.held('k'), 2);
    await s.release('k', ids[1]!);
    await s.release('k', ids[1]!); // idempotent
    t.is(await s.held('k'), 1);
    t.deepEqual(await s.counters('k'), { usd: 0.5 });
    t.deepEqual(await s.settle('k', 'no-such-hold', { usd: 0.25 }), { usd: 0.75 }); // absent hold: just the incr
    // re-holding an id replaces it and is not counted against itself
    t.deepEqual(await s.hold('k', ids[2]!, 2, opts), { admitted: true, value: 0.75, held: 0 });
    t.is(await s.held('k'), 2);
    const short = await s.hold('lapse', 'x', 1, { field: 'usd', limit: 1, ttlMs: 300 });
    t.true(short.admitted);
    t.false((await s.hold('lapse', 'y', 1, { field: 'usd', limit: 1, ttlMs: 300 })).admitted);
    await sleep(400);
    t.is(await s.held('lapse'), 0);
    t.true((await s.hold('lapse', 'y', 1, { field: 'usd', limit: 1, ttlMs: 300 })).admitted);
    await s.incr('spent', { usd: 3 });
    t.deepEqual(await s.hold('spent', 'z', 0.1, opts), { admitted: false, value: 3, held: 0 });
    // holds are not values: entries list only the counters
    t.deepEqual(
      (await collect(s.entries())).map(([k]) => k),
      ['k', 'spent'],
    );
  });

  it('holds with fit (strict budgets): refused when the hold itself does not fit in what is left; exact under concurrency, over every client', async (t, {
    store,
    another,
  }) => {
    const clients = [store, another ? await another() : store].map((s) => s.namespace('ext:budget'));
    const [a, b] = clients as [Store, Store];
    const fit = { field: 'usd', limit: 1, ttlMs: 60_000, fit: true };
    await a.incr('k', { usd: 0.25 });
    // 0.25 spent: 0.75 is left, so a hold of 0.8 does not fit (without fit it would be held)
    t.deepEqual(await a.hold('k', 'big', 0.8, fit), { admitted: false, value: 0.25, held: 0 });
    t.true((await b.hold('k', 'big', 0.8, { ...fit, fit: false })).admitted, 'the default admits it: one request may overshoot');
    await b.release('k', 'big');
    // 0.1 + 0.2 + 0.45 = 0.7500000000000001 in floats: an exact fit still fits
    t.true((await a.hold('k', 'h1', 0.1, fit)).admitted);
    t.true((await b.hold('k', 'h2', 0.2, fit)).admitted);
    t.true((await a.hold('k', 'h3', 0.45, fit)).admitted);
    t.false((await b.hold('k', 'h4', 0.001, fit)).admitted, 'nothing is left');
    t.is(await a.held('k'), 0.75);
    for (const id of ['h1', 'h2', 'h3']) await clients[id === 'h2' ? 1 : 0]!.release('k', id);
    // 40 holds of 0.1 at once against 0.75 left: exactly 7 fit (0.7), whichever client they come from
    const vs = await Promise.all(Array.from({ length: 40 }, (_, i) => clients[i % 2]!.hold('k', `c${i}`, 0.1, fit)));
    t.is(vs.filter((v) => v.admitted).length, 7);
    t.true(Math.abs((await b.held('k')) - 0.7) < 1e-9);
    // a settle frees what the hold had beyond the cost: 0.1 held, 0.05 spent → one more 0.1 fits
    const first = vs.findIndex((v) => v.admitted);
    t.deepEqual(await clients[first % 2]!.settle('k', `c${first}`, { usd: 0.05 }), { usd: 0.3 });
    t.true((await b.hold('k', 'after', 0.1, fit)).admitted);
    t.false((await a.hold('k', 'over', 0.1, fit)).admitted);
  });

  it('dropFields removes fields atomically and durably, over every client; the other fields, the holds and concurrent increments stay', async (t, {
    store,
    another,
    reopen,
  }) => {
    const clients = [store, another ? await another() : store].map((s) => s.namespace('ext:budget'));
    const [a, b] = clients as [Store, Store];
    await a.incr('k', { usd: 5, 'd:2026-05-04': 4, 'd:2026-05-13': 0.25, 'm:2026-05-01': 1 });
    t.true((await a.hold('k', 'h1', 0.5, { field: 'd:2026-05-13', limit: 1, ttlMs: 60_000 })).admitted);
    // drops (one of them twice, once from each client) racing increments of the kept fields
    await Promise.all([
      b.dropFields!('k', ['d:2026-05-04', 'd:never-there']),
      a.dropFields!('k', ['d:2026-05-04']),
      ...Array.from({ length: 20 }, (_, i) => clients[i % 2]!.incr('k', { usd: 0.5, 'd:2026-05-13': 0.5 })),
    ]);
    t.deepEqual(await b.counters('k'), { usd: 15, 'd:2026-05-13': 10.25, 'm:2026-05-01': 1 });
    t.is(await a.held('k'), 0.5);
    // a dropped field reads 0 and may be written again
    t.deepEqual(await a.hold('k', 'h2', 0.1, { field: 'd:2026-05-04', limit: 1, ttlMs: 60_000 }), { admitted: true, value: 0, held: 0.5 });
    await a.dropFields!('absent', ['x']);
    t.deepEqual(await a.counters('absent'), {});
    const again = (await reopen()).namespace('ext:budget');
    t.deepEqual(await again.counters('k'), { usd: 15, 'd:2026-05-13': 10.25, 'm:2026-05-01': 1 });
  });

  it('holds as an in-flight cap (max_parallel_requests): against a field never incremented, exactly `limit` live at once, over every client', async (t, {
    store,
    another,
  }) => {
    const clients = [store, another ? await another() : store].map((s) => s.namespace('keys'));
    const opts = { field: 'n', limit: 4, ttlMs: 60_000 };
    const vs = await Promise.all(Array.from({ length: 30 }, (_, i) => clients[i % 2]!.hold('inflight:k', `h${i}`, 1, opts)));
    const admitted = vs.map((v, i) => (v.admitted ? i : -1)).filter((i) => i >= 0);
    t.is(admitted.length, 4);
    t.true(vs.every((v) => v.value === 0));
    t.is(await clients[1]!.held('inflight:k'), 4);
    // a finished request gives its slot back from whichever client admitted it: one more fits
    await clients[admitted[0]! % 2]!.release('inflight:k', `h${admitted[0]}`);
    t.true((await clients[1]!.hold('inflight:k', 'next', 1, opts)).admitted);
    t.false((await clients[0]!.hold('inflight:k', 'over', 1, opts)).admitted);
    // nothing durable is left behind: no counter, no value
    t.deepEqual(await clients[0]!.counters('inflight:k'), {});
    t.deepEqual(await collect(clients[0]!.entries()), []);
  });

  it('withLock: read-check-write sequences are exclusive; the lock is released on throw', async (t, { store, another }) => {
    const clients = [store, another ? await another() : store].map((s) => s.namespace('lk'));
    await clients[0]!.set('n', '0');
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        clients[i % 2]!.withLock('counter', async () => {
          const n = Number(await clients[i % 2]!.get('n'));
          await sleep(2);
          await clients[i % 2]!.set('n', String(n + 1));
        }),
      ),
    );
    t.is(await clients[0]!.get('n'), '20');
    await t.throwsAsync(
      clients[1]!.withLock('counter', async () => {
        throw new Error('boom');
      }),
      { message: 'boom' },
    );
    t.is(await clients[0]!.withLock('counter', async () => 'free again'), 'free again');
    // different keys do not wait for each other
    let inner = '';
    await clients[0]!.withLock('a', () =>
      clients[0]!.withLock('b', async () => {
        inner = 'nested';
      }),
    );
    t.is(inner, 'nested');
  });

  it('buckets: per series and bucket, exact under concurrency, [from, to) oldest first, not values', async (t, { store, another }) => {
    const clients = [store, another ? await another() : store].map((s) => s.namespace('ext:usage'));
    const opts = { bucketMs: HOUR, retentionMs: 90 * 24 * HOUR };
    const h0 = Math.floor(Date.now() / HOUR) * HOUR - 5 * HOUR;
    const a = JSON.stringify(['default', 'gpt-4o', 'openai']);
    const b = JSON.stringify(['second', 'gpt-4o', 'openai']);
    await Promise.all(Array.from({ length: 100 }, (_, i) => clients[i % 2]!.bucketIncr('h', h0 + 10 + i, a, { requests: 1, prompt_tokens: 3 }, opts)));
    await clients[0]!.bucketIncr('h', h0 + HOUR - 1, b, { requests: 1, usd: 0.125 }, opts);
    await clients[1]!.bucketIncr('h', h0 + HOUR - 1, b, { usd: 0.125 }, opts);
    await clients[0]!.bucketIncr('h', h0 + 2 * HOUR, a, { requests: 2 }, opts);
    await clients[0]!.bucketIncr('h', h0 + 3 * HOUR + 5, '', { n: 1 }, opts); // any series string
    const all = await collect(clients[1]!.buckets('h', h0, h0 + 4 * HOUR, HOUR));
    t.deepEqual(all, [
      { start: h0, series: a, counters: { requests: 100, prompt_tokens: 300 } },
      { start: h0, series: b, counters: { requests: 1, usd: 0.25 } },
      { start: h0 + 2 * HOUR, series: a, counters: { requests: 2 } },
      { start: h0 + 3 * HOUR, series: '', counters: { n: 1 } },
    ]);
    t.deepEqual(
      (await collect(clients[0]!.buckets('h', h0 + 1, h0 + 3 * HOUR, HOUR))).map((r) => r.start),
      [h0 + 2 * HOUR],
    ); // starts in [from, to)
    t.deepEqual(await collect(clients[0]!.buckets('h', h0 + 2 * HOUR, h0 + 2 * HOUR, HOUR)), []);
    t.deepEqual(await collect(clients[0]!.buckets('other', h0, h0 + 4 * HOUR, HOUR)), []);
    t.deepEqual(await collect(store.namespace('ext:budget').buckets('h', h0, h0 + 4 * HOUR, HOUR)), []);
    t.deepEqual(await collect(store.entries()), []); // buckets are not values
    await store.clear(); // nor cleared with them
    t.is((await collect(clients[0]!.buckets('h', h0, h0 + 4 * HOUR, HOUR))).length, 4);
  });

  it('buckets: kept across a restart, dropped once past their retention', async (t, o) => {
    const opts = { bucketMs: HOUR, retentionMs: 2 * HOUR };
    const now = Date.now();
    const current = Math.floor(now / HOUR) * HOUR;
    const ns = o.store.namespace('u');
    await ns.bucketIncr('h', now - 5 * HOUR, 's', { n: 1 }, opts); // ended 4 h ago: past a 2 h retention
    await ns.bucketIncr('h', now - HOUR, 's', { n: 2 }, opts);
    await ns.bucketIncr('h', now, 's', { n: 3 }, opts);
    const again = (await o.reopen()).namespace('u');
    await again.bucketIncr('h', now, 's', { n: 4 }, opts); // a process prunes a key when it first writes it
    const rows = await collect(again.buckets('h', current - 10 * HOUR, current + HOUR, HOUR));
    t.deepEqual(
      rows.map((r) => [r.start, r.counters.n]),
      [
        [current - HOUR, 2],
        [current, 7],
      ],
    );
  });

  it('rings: newest maxLen kept, read newest first with limit and a stable cursor, sequence survives a restart', async (t, o) => {
    const clients = [o.store, o.another ? await o.another() : o.store].map((s) => s.namespace('ext:request_log'));
    const seqs = await Promise.all(Array.from({ length: 30 }, (_, i) => clients[i % 2]!.ringPush('log', `v${i}`, 20)));
    t.is(new Set(seqs).size, 30);
    t.deepEqual(
      [...seqs].sort((x, y) => x - y),
      Array.from({ length: 30 }, (_, i) => i + 1),
    );
    const all = await collect(clients[1]!.ringRead('log'));
    t.is(all.length, 20);
    t.deepEqual(
      all.map(([s]) => s),
      Array.from({ length: 20 }, (_, i) => 30 - i),
    ); // newest first
    const bySeq = new Map(seqs.map((s, i) => [s, `v${i}`]));
    t.true(all.every(([s, v]) => bySeq.get(s) === v));
    t.deepEqual(
      (await collect(clients[0]!.ringRead('log', { limit: 3 }))).map(([s]) => s),
      [30, 29, 28],
    );
    const page2 = await collect(clients[0]!.ringRead('log', { limit: 3, before: 28 }));
    await clients[0]!.ringPush('log', 'meanwhile', 20); // a push between pages does not shift them
    t.deepEqual(
      page2.map(([s]) => s),
      [27, 26, 25],
    );
    t.deepEqual(
      (await collect(clients[0]!.ringRead('log', { limit: 3, before: 25 }))).map(([s]) => s),
      [24, 23, 22],
    );
    t.deepEqual(await collect(clients[0]!.ringRead('log', { limit: 0 })), []);
    t.deepEqual(await collect(clients[0]!.ringRead('empty')), []);
    await clients[0]!.ringPush('dup', 'same', 5);
    await clients[0]!.ringPush('dup', 'same', 5); // equal values are two entries
    t.deepEqual(await collect(clients[0]!.ringRead('dup')), [
      [2, 'same'],
      [1, 'same'],
    ]);
    t.deepEqual(await collect(o.store.entries()), []); // rings are not values
    // stop iterating early: fine
    for await (const [s] of clients[0]!.ringRead('log')) if (s) break;
    const after = (await o.reopen()).namespace('ext:request_log');
    t.is(await after.ringPush('log', 'after restart', 20), 32);
    const kept = await collect(after.ringRead('log'));
    t.is(kept.length, 20);
    t.deepEqual(kept[0], [32, 'after restart']);
  });

  it('restart: values, counters and windows survive; holds do not', async (t, o) => {
    const now = Date.now();
    const ns = o.store.namespace('a');
    await ns.windowAdmit('k', 2, 60_000, { now });
    await ns.windowAdmit('k', 2, 60_000, { now });
    await ns.windowAdd('tok', 7, 60_000, now);
    await ns.set('v', 'x');
    await ns.incr('c', { n: 2 });
    t.true((await ns.hold('h', '1', 5, { field: 'usd', limit: 6, ttlMs: 60_000 })).admitted);
    t.deepEqual(
      (await collect(o.store.entries())).map(([k]) => k),
      ['a:c', 'a:v'],
    );
    const store = await o.reopen();
    const again = store.namespace('a');
    t.false((await again.windowAdmit('k', 2, 60_000, { now: now + 1 })).admitted);
    t.is((await again.windowAdmit('tok', 100, 60_000, { cost: 0, now: now + 1 })).total, 7);
    t.is(await again.get('v'), 'x');
    t.deepEqual(await again.counters('c'), { n: 2 });
    t.is(await again.held('h'), 0);
    await again.clear(); // clear never touches windows
    t.false((await again.windowAdmit('k', 2, 60_000, { now: now + 2 })).admitted);
  });
}
