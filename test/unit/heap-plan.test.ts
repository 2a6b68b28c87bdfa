/**
 * What `gw serve` re-executes itself with (cli/heap.ts heapPlan): the V8 flags and malloc
 * setting the operator did not give, and nothing twice.
 */
import test from 'ava';
import { heapPlan } from '../../cli/heap.ts';

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
