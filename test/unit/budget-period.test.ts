/**
 * Budget periods (plugins/extensions/budget/period.ts): UTC calendar days, weeks starting
 * Monday and months, at month ends, leap days and year ends, and a clock set across a
 * boundary (forwards and back). No sleeping: times are given.
 */
import test from 'ava';
import { parseLegacyKey } from '../../plugins/extensions/budget/legacy.ts';
import { isoDate, PeriodClock, periodAt, windowOfField } from '../../plugins/extensions/budget/period.ts';
import { firstKept, spentIn, staleFields } from '../../plugins/extensions/budget/spend.ts';

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

test('lifetime has no window; each window names its field in a spend record; fields round-trip', (t) => {
  t.is(periodAt('lifetime', Date.now()), undefined);
  t.is(isoDate(at('2028-02-29T23:00:00Z')), '2028-02-29');
  t.is(periodAt('daily', at('2026-05-20T13:00:00Z'))!.field, 'd:2026-05-20');
  t.is(periodAt('weekly', at('2026-06-02T00:00:00Z'))!.field, 'w:2026-06-01');
  t.is(periodAt('monthly', at('2028-02-29T23:59:59Z'))!.field, 'm:2028-02-01');
  t.deepEqual(windowOfField('w:2026-06-01'), periodAt('weekly', at('2026-06-03T00:00:00Z')));
  t.deepEqual(windowOfField('m:2026-12-01'), periodAt('monthly', at('2026-12-31T00:00:00Z')));
  // not a period's field: a date that is no period start, no date, another field
  t.is(windowOfField('w:2026-06-02'), undefined); // a Tuesday
  t.is(windowOfField('m:2026-05-02'), undefined);
  t.is(windowOfField('d:2026-02-30'), undefined);
  t.is(windowOfField('usd'), undefined);
  t.is(windowOfField('x:daily/2026-05-20'), undefined);
  t.deepEqual(new PeriodClock().fieldsAt(at('2026-05-31T23:59:59Z')), ['d:2026-05-31', 'w:2026-05-25', 'm:2026-05-01']);
});

test('each kind of period reads its own total; lifetime the total; the fields of periods before the previous one are stale', (t) => {
  const rec = {
    usd: 10,
    'd:2026-05-13': 2,
    'd:2026-05-14': 3,
    'w:2026-05-04': 1,
    'w:2026-05-11': 5,
    'm:2026-04-01': 4,
    'm:2026-05-01': 6,
    'x:daily/2026-05-01': 1,
  };
  const now = at('2026-05-14T12:00:00Z');
  t.is(spentIn(rec, periodAt('daily', now)), 3);
  t.is(spentIn(rec, periodAt('weekly', now)), 5);
  t.is(spentIn(rec, periodAt('monthly', now)), 6);
  t.is(spentIn(rec, undefined), 10);
  t.is(spentIn({}, periodAt('monthly', now)), 0);
  t.deepEqual(firstKept(now), { daily: 'd:2026-05-13', weekly: 'w:2026-05-04', monthly: 'm:2026-04-01' });
  t.is(staleFields(rec, firstKept(now)), undefined);
  // a month later: every period field but none of the others (usd, the migration's marker)
  t.deepEqual(staleFields(rec, firstKept(at('2026-06-14T00:00:00Z')))?.sort(), [
    'd:2026-05-13',
    'd:2026-05-14',
    'm:2026-04-01',
    'w:2026-05-04',
    'w:2026-05-11',
  ]);
});

test('counters of the earlier per-period layout: parsed, their amount dated so the period in force counts it', (t) => {
  const today = at('2026-05-14T09:00:00Z');
  const v = JSON.stringify({ usd: 0.5 });
  t.deepEqual(parseLegacyKey('s:team-a/daily/2026-05-12', v, today), {
    key: 's:team-a/daily/2026-05-12',
    account: 'team-a',
    tag: 'daily/2026-05-12',
    fields: ['d:2026-05-12', 'w:2026-05-11', 'm:2026-05-01'],
    amount: 0.5,
  });
  // the running week and month: dated today; past ones: their last day
  t.like(parseLegacyKey('s:a/weekly/2026-05-11', v, today), { fields: ['w:2026-05-11', 'd:2026-05-14', 'm:2026-05-01'] });
  t.like(parseLegacyKey('s:a/monthly/2026-05-01', v, today), { fields: ['m:2026-05-01', 'd:2026-05-14', 'w:2026-05-11'] });
  t.like(parseLegacyKey('s:a/monthly/2026-04-01', v, today), { fields: ['m:2026-04-01', 'd:2026-04-30', 'w:2026-04-27'] });
  t.like(parseLegacyKey('s:a/weekly/2026-04-27', v, today), { fields: ['w:2026-04-27', 'd:2026-05-03', 'm:2026-05-01'] });
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
