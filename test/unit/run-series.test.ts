/**
 * core/hooks.ts runSeries: an async series hook (onResponse, onError) whose taps are all
 * sync runs them in order with no promise; any other tap, or an interceptor, leaves the run
 * to tapable's promise, in the same order; a throwing tap fails the run either way.
 */
import { AsyncSeriesHook } from 'tapable';
import test from 'ava';
import { runSeries } from '../../core/hooks.ts';

function hook(): AsyncSeriesHook<[string[], string]> {
  return new AsyncSeriesHook<[string[], string]>(['seen', 'what'], 'onResponse');
}

test('sync taps only: they run at once, in order, and no promise is made', (t) => {
  const h = hook();
  h.tap('a', (seen, what) => void seen.push(`a:${what}`));
  h.tap('b', (seen, what) => void seen.push(`b:${what}`));
  const seen: string[] = [];
  t.is(runSeries(h, seen, 'x'), undefined);
  t.deepEqual(seen, ['a:x', 'b:x']);
  t.is(runSeries(hook(), seen, 'y'), undefined, 'no tap at all');
});

test('a throwing sync tap throws out of the run, and later taps do not run (as the promise would reject)', (t) => {
  const h = hook();
  const seen: string[] = [];
  h.tap('a', () => {
    throw new Error('tap a failed');
  });
  h.tap('b', (s) => void s.push('b'));
  t.throws(() => runSeries(h, seen, 'x'), { message: 'tap a failed' });
  t.deepEqual(seen, []);
});

test('a promise tap among sync ones: tapable runs them all, in order, and the run is its promise', async (t) => {
  const h = hook();
  h.tap('a', (seen) => void seen.push('a'));
  h.tapPromise('b', async (seen) => {
    await new Promise((r) => setTimeout(r, 5));
    seen.push('b');
  });
  h.tap('c', (seen) => void seen.push('c'));
  const seen: string[] = [];
  const run = runSeries(h, seen, 'x');
  t.true(run instanceof Promise);
  await run;
  t.deepEqual(seen, ['a', 'b', 'c']);
});

test('an interceptor sees the run: it goes through tapable even with sync taps only', async (t) => {
  const h = hook();
  const calls: string[] = [];
  h.intercept({ call: (_seen, what) => void calls.push(what) });
  h.tap('a', (seen) => void seen.push('a'));
  const seen: string[] = [];
  await runSeries(h, seen, 'x');
  t.deepEqual([calls, seen], [['x'], ['a']]);
});
