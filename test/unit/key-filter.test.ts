import test from 'ava';
import fc from 'fast-check';
import { KeyFilter } from '../../plugins/stores/level/key-filter.ts';

test('no false negatives, across the growth of the filter', (t) => {
  fc.assert(
    fc.property(fc.uniqueArray(fc.string({ maxLength: 40 }), { maxLength: 500 }), (keys) => {
      const f = new KeyFilter();
      for (const k of keys) f.add(k);
      return keys.every((k) => f.mightHave(k));
    }),
  );
  const f = new KeyFilter();
  for (let i = 0; i < 100_000; i++) f.add(`cache:${i.toString(16).padStart(64, '0')}`);
  for (let i = 0; i < 100_000; i++) t.true(f.mightHave(`cache:${i.toString(16).padStart(64, '0')}`));
  // a key that seems present already is not counted: about 1% of new keys
  t.true(f.count > 98_000 && f.count <= 100_000, `count ${f.count}`);
});

test('adding the same keys over and over does not grow the filter (the store puts its counters on every request)', (t) => {
  const f = new KeyFilter();
  for (let i = 0; i < 1000; i++) f.add(`cache:${i}`);
  const bytes = f.bytes;
  for (let round = 0; round < 1000; round++) for (let i = 0; i < 10; i++) f.add(`usage:key:bench:model-${i}`);
  t.is(f.bytes, bytes);
  t.true(f.count <= 1010, `count ${f.count}`);
  t.true(f.mightHave('usage:key:bench:model-3'));
});

test('few false positives: about 1% of keys never added', (t) => {
  const f = new KeyFilter();
  t.false(f.mightHave('anything'));
  for (let i = 0; i < 50_000; i++) f.add(`k${i}`);
  let fp = 0;
  for (let i = 0; i < 50_000; i++) if (f.mightHave(`other${i}`)) fp++;
  t.true(fp < 50_000 * 0.03, `${fp} false positives`);
});
