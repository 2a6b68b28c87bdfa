/**
 * Budget periods (plugins/extensions/budget/period.ts): UTC calendar days, weeks starting
 * Monday and months, at month ends, leap days and year ends, and a clock set across a
 * boundary (forwards and back). No sleeping: times are given.
 */
import test from 'ava';
import { isoDate, PeriodClock, periodAt } from '../../plugins/extensions/budget/period.ts';
import { parseCounterKey, counterKey } from '../../plugins/extensions/budget/spend.ts';

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

test('lifetime has no window; dates and counter keys round-trip', (t) => {
  t.is(periodAt('lifetime', Date.now()), undefined);
  t.is(isoDate(at('2028-02-29T23:00:00Z')), '2028-02-29');
  const w = periodAt('monthly', at('2026-05-20T00:00:00Z'))!;
  t.is(counterKey('team-a', w), 's:team-a/monthly/2026-05-01');
  t.is(counterKey('team-a', undefined), 's:team-a');
  t.deepEqual(parseCounterKey('s:team-a/monthly/2026-05-01'), { account: 'team-a', period: 'monthly', window: w });
  t.deepEqual(parseCounterKey('s:(open)'), { account: '(open)', period: 'lifetime', window: undefined });
  // not ours: an unknown period, a date that is not a period start, junk
  t.is(parseCounterKey('s:a/yearly/2026-01-01'), undefined);
  t.is(parseCounterKey('s:a/monthly/2026-05-02'), undefined);
  t.is(parseCounterKey('s:a/weekly/2026-05-12'), undefined); // a Tuesday
  t.is(parseCounterKey('s:a/daily/not-a-date'), undefined);
  t.is(parseCounterKey('u:a'), undefined);
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
