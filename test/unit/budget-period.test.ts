/**
 * Budget periods (plugins/extensions/budget/period.ts): UTC calendar days, weeks starting
 * Monday and months, at month ends, leap days and year ends, and a clock set across a
 * boundary (forwards and back). No sleeping: times are given.
 */
import test from 'ava';
import { parseLegacyKey } from '../../plugins/extensions/budget/legacy.ts';
import { dayField, dayOfField, isoDate, PeriodClock, periodAt } from '../../plugins/extensions/budget/period.ts';
import { spentIn, staleDays } from '../../plugins/extensions/budget/spend.ts';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

function window(period: 'daily' | 'weekly' | 'monthly', when: string): [string, string] {
  const w = periodAt(period, at(when))!;
  return [iso(w.start), iso(w.end)];
}

test('daily: midnight to midnight UTC, the last millisecond still in the day', (t) => {
  t.deepEqual(window('daily', '2026-05-14T13:45:00Z'), ['2026-05-14T00:00:00.000Z', '2026-05-15T00:00:00.000Z']);
  t.deepEqual(window('daily', '2026-05-14T23:59:59.999Z'), ['2026-05-14T00:00:00.000Z', '2026-05-15T00:00:00.000Z']);
  t.deepEqual(window('daily', '2026-05-15T00:00:00.000Z'), ['2026-05-15T00:00:00.000Z', '2026-05-16T00:00:00.000Z']);
  // an offset time is the UTC day it falls in
  t.deepEqual(window('daily', '2026-05-14T23:30:00-02:00'), ['2026-05-15T00:00:00.000Z', '2026-05-16T00:00:00.000Z']);
});

test('monthly: month ends of every length, December into January', (t) => {
  t.deepEqual(window('monthly', '2026-01-31T23:59:59.999Z'), ['2026-01-01T00:00:00.000Z', '2026-02-01T00:00:00.000Z']);
  t.deepEqual(window('monthly', '2026-02-01T00:00:00Z'), ['2026-02-01T00:00:00.000Z', '2026-03-01T00:00:00.000Z']);
  t.deepEqual(window('monthly', '2026-02-28T12:00:00Z'), ['2026-02-01T00:00:00.000Z', '2026-03-01T00:00:00.000Z']);
  t.deepEqual(window('monthly', '2026-04-30T23:00:00Z'), ['2026-04-01T00:00:00.000Z', '2026-05-01T00:00:00.000Z']);
  t.deepEqual(window('monthly', '2026-12-31T23:59:59.999Z'), ['2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z']);
  t.deepEqual(window('monthly', '2027-01-01T00:00:00Z'), ['2027-01-01T00:00:00.000Z', '2027-02-01T00:00:00.000Z']);
});

test('leap days: February 2028 has 29 days, 2100 is not a leap year', (t) => {
  t.deepEqual(window('monthly', '2028-02-29T18:00:00Z'), ['2028-02-01T00:00:00.000Z', '2028-03-01T00:00:00.000Z']);
  t.deepEqual(window('daily', '2028-02-29T00:00:00Z'), ['2028-02-29T00:00:00.000Z', '2028-03-01T00:00:00.000Z']);
  t.deepEqual(window('daily', '2028-02-28T23:59:59.999Z'), ['2028-02-28T00:00:00.000Z', '2028-02-29T00:00:00.000Z']);
  t.deepEqual(window('monthly', '2100-02-28T23:59:59Z'), ['2100-02-01T00:00:00.000Z', '2100-03-01T00:00:00.000Z']);
  t.deepEqual(window('daily', '2100-02-28T12:00:00Z'), ['2100-02-28T00:00:00.000Z', '2100-03-01T00:00:00.000Z']);
  // the week holding 2028-02-29 (a Tuesday) starts Monday the 28th and spans into March
  t.deepEqual(window('weekly', '2028-02-29T10:00:00Z'), ['2028-02-28T00:00:00.000Z', '2028-03-06T00:00:00.000Z']);
});

test('weekly: Monday 00:00 UTC to the next Monday, across month and year ends', (t) => {
  // 2026-05-11 is a Monday
  t.deepEqual(window('weekly', '2026-05-11T00:00:00Z'), ['2026-05-11T00:00:00.000Z', '2026-05-18T00:00:00.000Z']);
  t.deepEqual(window('weekly', '2026-05-17T23:59:59.999Z'), ['2026-05-11T00:00:00.000Z', '2026-05-18T00:00:00.000Z']); // Sunday
  t.deepEqual(window('weekly', '2026-05-13T08:00:00Z'), ['2026-05-11T00:00:00.000Z', '2026-05-18T00:00:00.000Z']); // Wednesday
  // 2026-01-01 is a Thursday: its week began in 2025
  t.deepEqual(window('weekly', '2026-01-01T00:00:00Z'), ['2025-12-29T00:00:00.000Z', '2026-01-05T00:00:00.000Z']);
  t.deepEqual(window('weekly', '2026-03-01T12:00:00Z'), ['2026-02-23T00:00:00.000Z', '2026-03-02T00:00:00.000Z']);
  for (let d = 0; d < 400; d++) {
    const w = periodAt('weekly', at('2026-01-01T12:00:00Z') + d * 86_400_000)!;
    if (new Date(w.start).getUTCDay() !== 1 || w.end - w.start !== 7 * 86_400_000) return t.fail(`week of day ${d} is ${iso(w.start)}..${iso(w.end)}`);
  }
});

test('lifetime has no window; a window lists its day fields; day fields round-trip', (t) => {
  t.is(periodAt('lifetime', Date.now()), undefined);
  t.is(isoDate(at('2028-02-29T23:00:00Z')), '2028-02-29');
  t.deepEqual(periodAt('daily', at('2026-05-20T13:00:00Z'))!.days, ['d:2026-05-20']);
  t.deepEqual(periodAt('weekly', at('2026-06-02T00:00:00Z'))!.days, [
    'd:2026-06-01',
    'd:2026-06-02',
    'd:2026-06-03',
    'd:2026-06-04',
    'd:2026-06-05',
    'd:2026-06-06',
    'd:2026-06-07',
  ]);
  const feb = periodAt('monthly', at('2028-02-10T00:00:00Z'))!.days;
  t.is(feb.length, 29);
  t.is(feb[28], 'd:2028-02-29');
  t.is(periodAt('monthly', at('2026-12-31T23:59:59Z'))!.days.length, 31);
  t.is(dayField(at('2026-05-20T23:59:59.999Z')), 'd:2026-05-20');
  t.is(dayOfField('d:2026-05-20'), at('2026-05-20T00:00:00Z'));
  t.is(dayOfField('d:2026-02-30'), undefined);
  t.is(dayOfField('usd'), undefined);
  t.is(dayOfField('m:daily/2026-05-20'), undefined);
});

test('spend in a period is the sum of its days, whatever period the key had before; lifetime is the total; old days are found', (t) => {
  const rec = { usd: 10, 'd:2026-04-30': 4, 'd:2026-05-01': 1, 'd:2026-05-13': 2, 'd:2026-05-14': 3 };
  const now = at('2026-05-14T12:00:00Z');
  t.is(spentIn(rec, periodAt('daily', now)), 3);
  t.is(spentIn(rec, periodAt('weekly', now)), 5); // Monday the 11th on
  t.is(spentIn(rec, periodAt('monthly', now)), 6);
  t.is(spentIn(rec, undefined), 10);
  t.is(spentIn({}, periodAt('monthly', now)), 0);
  t.deepEqual(staleDays(rec, 'd:2026-05-02'), ['d:2026-04-30', 'd:2026-05-01']);
  t.is(staleDays(rec, 'd:2026-01-01'), undefined);
});

test('counters of the earlier per-period layout: parsed, their amount dated to a day the period in force counts', (t) => {
  const today = at('2026-05-14T09:00:00Z');
  const v = JSON.stringify({ usd: 0.5 });
  t.like(parseLegacyKey('s:team-a/daily/2026-05-12', v, today), { account: 'team-a', tag: 'daily/2026-05-12', day: 'd:2026-05-12', amount: 0.5 });
  // the running week and month: today; past ones: their last day
  t.like(parseLegacyKey('s:a/weekly/2026-05-11', v, today), { day: 'd:2026-05-14' });
  t.like(parseLegacyKey('s:a/monthly/2026-05-01', v, today), { day: 'd:2026-05-14' });
  t.like(parseLegacyKey('s:a/monthly/2026-04-01', v, today), { day: 'd:2026-04-30' });
  t.like(parseLegacyKey('s:a/weekly/2026-05-04', v, today), { day: 'd:2026-05-10' });
  // not a counter of the earlier layout: the record itself, an unknown period, a date that is no period start, junk
  t.is(parseLegacyKey('s:a', v, today), undefined);
  t.is(parseLegacyKey('s:a/yearly/2026-01-01', v, today), undefined);
  t.is(parseLegacyKey('s:a/monthly/2026-05-02', v, today), undefined);
  t.is(parseLegacyKey('s:a/weekly/2026-05-12', v, today), undefined); // a Tuesday
  t.is(parseLegacyKey('s:a/daily/not-a-date', v, today), undefined);
  t.is(parseLegacyKey('s:a/daily/2026-05-12', '{"usd":null}', today), undefined);
  t.is(parseLegacyKey('u:a', v, today), undefined);
});

test('a clock set across a boundary: the cached window follows it forwards and back', (t) => {
  const clock = new PeriodClock();
  const before = at('2026-05-31T23:59:59.999Z');
  const after = at('2026-06-01T00:00:00.000Z');
  t.is(clock.at('monthly', before)!.date, '2026-05-01');
  t.is(clock.at('daily', before)!.date, '2026-05-31');
  t.is(clock.at('monthly', after)!.date, '2026-06-01');
  t.is(clock.at('daily', after)!.date, '2026-06-01');
  t.is(clock.at('weekly', after)!.date, '2026-06-01'); // a Monday
  // set back (NTP step, a test clock): the earlier period again, never the cached later one
  t.is(clock.at('monthly', before)!.date, '2026-05-01');
  t.is(clock.at('weekly', before)!.date, '2026-05-25');
  t.is(clock.at('daily', before - 86_400_000)!.date, '2026-05-30');
  t.is(clock.at('lifetime', after), undefined);
});
