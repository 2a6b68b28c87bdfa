import test from 'ava';
import { HoldSet } from '../../plugins/stores/level/hold-set.ts';

/** The sum the set must report: unexpired holds at `now`, but `except`'s. */
function naive(holds: Map<string, { amount: number; expiresAt: number }>, now: number, except?: string): number {
  let sum = 0;
  for (const [id, h] of holds) if (h.expiresAt > now && id !== except) sum += h.amount;
  return sum;
}

test('the kept sum equals a scan through adds, re-holds, deletes and lapses', (t) => {
  const s = new HoldSet();
  const model = new Map<string, { amount: number; expiresAt: number }>();
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  let now = 1_000;
  for (let i = 0; i < 20_000; i++) {
    now += Math.floor(rnd() * 3);
    const id = `r${Math.floor(rnd() * 64)}`;
    const op = rnd();
    if (op < 0.5) {
      const h = { amount: Math.round(rnd() * 1e6) / 1e6, expiresAt: now + 1 + Math.floor(rnd() * 200) };
      s.add(id, h.amount, h.expiresAt);
      model.set(id, h);
    } else if (op < 0.9) {
      s.delete(id);
      model.delete(id);
    } else {
      const except = rnd() < 0.5 ? id : undefined;
      t.true(Math.abs(s.live(now, except) - naive(model, now, except)) < 1e-9, `step ${i}`);
      for (const [k, h] of model) if (h.expiresAt <= now) model.delete(k);
      t.is(s.size, model.size, 'lapsed holds are dropped once the earliest expiry has passed');
    }
  }
});

test('a lapsed hold stops counting at its expiry; an empty set sums to exactly 0', (t) => {
  const s = new HoldSet();
  s.add('a', 0.1, 100);
  s.add('b', 0.2, 200);
  t.is(s.live(99), 0.1 + 0.2);
  t.is(s.live(99, 'a'), 0.1 + 0.2 - 0.1);
  t.is(s.live(100), 0.2);
  t.is(s.size, 1);
  s.add('b', 0.5, 300); // a re-hold replaces the amount
  t.is(s.live(150), 0.5);
  s.delete('b');
  t.is(s.live(150), 0);
  t.is(s.size, 0);
});
