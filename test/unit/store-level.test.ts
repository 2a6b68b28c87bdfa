import test from 'ava';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { openLevelStore } from '../../core/store/level.ts';
import type { Store } from '../../core/store/types.ts';

async function open(t: import('ava').ExecutionContext, dir?: string): Promise<{ store: Store; dir: string }> {
  const d = dir ?? (await mkdtemp(join(tmpdir(), 'gw-store-')));
  const store = await openLevelStore(d);
  t.teardown(async () => {
    await store.close().catch(() => undefined);
    if (!dir) await rm(d, { recursive: true, force: true });
  });
  return { store, dir: d };
}

test('windowAdmit: exact under concurrency, sliding, with retry-after from the oldest entry', async (t) => {
  const { store } = await open(t);
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

test('windowAdmit with cost 0 and pending; windowAdd; retry-after until enough leaves the window', async (t) => {
  const { store } = await open(t);
  await store.windowAdd('t', 40, 60_000, 1000);
  await store.windowAdd('t', 50, 60_000, 2000);
  let v = await store.windowAdmit('t', 100, 60_000, { cost: 0, now: 3000 });
  t.deepEqual(v, { admitted: true, total: 90, retryAfterMs: 0 });
  v = await store.windowAdmit('t', 100, 60_000, { cost: 0, pending: 15, now: 3000 });
  t.false(v.admitted);
  t.is(v.retryAfterMs, 58_000); // once the 40 at t=1000 leaves: 50 + 15 < 100
  v = await store.windowAdmit('t', 100, 60_000, { cost: 0, pending: 120, now: 3000 });
  t.is(v.retryAfterMs, 60_000);
  t.is((await store.windowAdmit('t', 100, 60_000, { cost: 0, now: 3000 })).total, 90); // cost 0 recorded nothing
});

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

test('hold/settle/release: refused when value + other holds >= limit; settle commits and drops atomically; holds lapse', async (t) => {
  const { store } = await open(t);
  const s = store.namespace('ext:budget');
  const opts = { field: 'usd', limit: 3, ttlMs: 60_000 };
  // 10 parallel holds of 1 against 3: admitted while the others' holds are < 3
  const vs = await Promise.all(Array.from({ length: 10 }, (_, i) => s.hold('k', String(i), 1, opts)));
  t.is(vs.filter((v) => v.admitted).length, 3); // the 4th sees 3 held: 0 + 3 >= 3
  t.is(await s.held('k'), vs.filter((v) => v.admitted).length);
  const ids = vs.map((v, i) => (v.admitted ? String(i) : undefined)).filter((x) => x !== undefined);
  const rec = await s.settle('k', ids[0]!, { usd: 0.5 });
  t.deepEqual(rec, { usd: 0.5 });
  t.is(await s.held('k'), ids.length - 1);
  await s.release('k', ids[1]!);
  await s.release('k', ids[1]!); // idempotent
  t.is(await s.held('k'), ids.length - 2);
  t.deepEqual(await s.counters('k'), { usd: 0.5 });
  const short = await s.hold('lapse', 'x', 1, { field: 'usd', limit: 1, ttlMs: 30 });
  t.true(short.admitted);
  t.false((await s.hold('lapse', 'y', 1, { field: 'usd', limit: 1, ttlMs: 30 })).admitted);
  await sleep(50);
  t.true((await s.hold('lapse', 'y', 1, { field: 'usd', limit: 1, ttlMs: 30 })).admitted);
  // the counter value counts too
  await s.incr('spent', { usd: 3 });
  t.deepEqual(await s.hold('spent', 'z', 0.1, opts), { admitted: false, value: 3, held: 0 });
});

test('values with TTL expire; incr never loses concurrent updates; namespaces are isolated', async (t) => {
  const { store } = await open(t);
  const a = store.namespace('a');
  const b = store.namespace('b');
  await a.set('x', '1', { ttlMs: 40 });
  await b.set('x', '2');
  t.is(await a.get('x'), '1');
  await sleep(60);
  t.is(await a.get('x'), undefined);
  t.is(await b.get('x'), '2');
  await Promise.all(Array.from({ length: 100 }, () => a.incr('c', { n: 1, m: 2 })));
  t.deepEqual(await a.counters('c'), { n: 100, m: 200 });
  t.deepEqual(await b.counters('c'), {});
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
