import test from 'ava';
import fc from 'fast-check';
import { WindowLog } from '../../plugins/stores/level/window-log.ts';

test('the ring keeps exactly the entries after the cutoff, through growth and shrinking', (t) => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.integer({ min: 0, max: 50 }), fc.integer({ min: 1, max: 9 }), fc.integer({ min: 0, max: 400 })), { maxLength: 300 }),
      (steps) => {
        const log = new WindowLog();
        const model: Array<[number, number]> = [];
        let now = 0;
        for (const [gap, amount, windowMs] of steps) {
          now += gap;
          const cutoff = now - windowMs;
          const before = model.length;
          while (model.length && model[0]![0] <= cutoff) model.shift();
          if (log.expire(cutoff) !== before - model.length) return false;
          log.push(now, amount);
          model.push([now, amount]);
          if (log.size !== model.length || log.total !== model.reduce((s, [, a]) => s + a, 0)) return false;
        }
        return true;
      },
    ),
  );
  t.pass();
});

test('retryAfter: time until enough of the oldest entries leave', (t) => {
  const log = new WindowLog();
  for (let i = 0; i < 40; i++) log.push(1000 + i * 10, 1);
  t.is(log.retryAfter(40, 0, 1400, 1000), 1000 + 1000 - 1400); // the oldest leaving frees one
  t.is(log.retryAfter(35, 0, 1400, 1000), 1050 + 1000 - 1400);
  t.is(log.retryAfter(5, 10, 1400, 1000), 1000); // pending alone is too much
  log.expire(10_000);
  t.is(log.size, 0);
  t.is(log.total, 0);
});
