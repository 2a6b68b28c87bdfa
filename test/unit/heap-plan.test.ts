/**
 * What `gw serve` re-executes itself with (cli/heap.ts heapPlan): the V8 flags and malloc
 * setting the operator did not give, and nothing twice.
 */
import test from 'ava';
import { findJemalloc, heapPlan } from '../../cli/heap.ts';

test('nothing given: both V8 flags and two malloc arenas', (t) => {
  t.deepEqual(heapPlan([], {}), {
    flags: ['--max-semi-space-size=8', '--heap-growing-percent=50'],
    env: { GW_HEAP_TUNED: '1', MALLOC_ARENA_MAX: '2' },
  });
});

test("the operator's settings are kept: only what is missing is added", (t) => {
  t.deepEqual(heapPlan([], { NODE_OPTIONS: '--max-semi-space-size=32', MALLOC_ARENA_MAX: '4' }), {
    flags: ['--heap-growing-percent=50'],
    env: { GW_HEAP_TUNED: '1' },
  });
  t.deepEqual(heapPlan(['--heap-growing-percent=30'], {})?.flags, ['--max-semi-space-size=8']);
  // both flags given: no re-exec at all
  t.is(heapPlan(['--heap-growing-percent=30', '--max-semi-space-size=16'], {}), undefined);
});

test('no re-exec twice, nor under a profiler or debugger', (t) => {
  t.is(heapPlan([], { GW_HEAP_TUNED: '1' }), undefined);
  t.is(heapPlan(['--cpu-prof'], {}), undefined);
  t.is(heapPlan([], { NODE_OPTIONS: '--inspect=0' }), undefined);
});

test('jemalloc, when the system has it, is preloaded with its settings; GW_MALLOC=system or a preload of their own keeps it out', (t) => {
  const lib = '/usr/lib/x86_64-linux-gnu/libjemalloc.so.2';
  t.deepEqual(heapPlan([], {}, lib)?.env, {
    GW_HEAP_TUNED: '1',
    MALLOC_ARENA_MAX: '2',
    LD_PRELOAD: lib,
    MALLOC_CONF: 'narenas:2,dirty_decay_ms:1000,muzzy_decay_ms:0',
  });
  t.like(heapPlan([], { MALLOC_CONF: 'narenas:1' }, lib)?.env, { LD_PRELOAD: lib, MALLOC_CONF: undefined });
  t.is(heapPlan([], { GW_MALLOC: 'system' }, lib)?.env.LD_PRELOAD, undefined);
  t.is(heapPlan([], { LD_PRELOAD: '/opt/libtcmalloc.so' }, lib)?.env.LD_PRELOAD, undefined);
  // the V8 flags given, jemalloc still wanted: the re-exec happens for it alone
  t.deepEqual(heapPlan(['--heap-growing-percent=30', '--max-semi-space-size=16'], {}, lib)?.flags, []);
  t.is(heapPlan(['--heap-growing-percent=30', '--max-semi-space-size=16'], { GW_MALLOC: 'system' }, lib), undefined);
});

test('findJemalloc: the first library present, none on a system without it', (t) => {
  if (process.platform !== 'linux') return t.pass();
  t.is(
    findJemalloc(() => false),
    undefined,
  );
  t.is(
    findJemalloc((p) => p.startsWith('/usr/lib64/')),
    '/usr/lib64/libjemalloc.so.2',
  );
});
