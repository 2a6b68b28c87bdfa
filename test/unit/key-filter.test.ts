import test from 'ava';
import fc from 'fast-check';
import { KeyFilter } from '../../core/store/key-filter.ts';

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
  t.is(f.count, 100_000);
});

test('few false positives: about 1% of keys never added', (t) => {
  const f = new KeyFilter();
  t.false(f.mightHave('anything'));
  for (let i = 0; i < 50_000; i++) f.add(`k${i}`);
  let fp = 0;
  for (let i = 0; i < 50_000; i++) if (f.mightHave(`other${i}`)) fp++;
  t.true(fp < 50_000 * 0.03, `${fp} false positives`);
});
