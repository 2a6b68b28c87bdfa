/**
 * lib/dates.ts: the one reader of the dates users write. Calendar days only (leap years by
 * the Gregorian rule), times of day 00:00:00-23:59:59, offsets up to ±23:59; and a TOML date
 * smol-toml rolled over is found by its key path.
 */
import test from 'ava';
import { parse } from 'smol-toml';
import { parseDateTime, rolledOver } from '../../lib/dates.ts';

test('real dates and date-times read to epoch ms, in every form the fields take', (t) => {
  t.is(parseDateTime('2024-02-29'), Date.UTC(2024, 1, 29));
  t.is(parseDateTime('2000-02-29'), Date.UTC(2000, 1, 29));
  t.is(parseDateTime('2026-01-31T10:00:00Z'), Date.UTC(2026, 0, 31, 10));
  t.is(parseDateTime('2026-01-31t10:00z'), Date.UTC(2026, 0, 31, 10));
  t.is(parseDateTime('2026-01-31 10:00:00.250+02:00'), Date.UTC(2026, 0, 31, 8, 0, 0, 250));
  t.is(parseDateTime('2026-01-31T23:30:00-0130'), Date.UTC(2026, 1, 1, 1));
  t.is(parseDateTime('0001-01-01'), -62_135_596_800_000, 'years under 100 are not read as 19xx');
});

test('impossible days, times and offsets say what is wrong; other text says what is expected', (t) => {
  for (const bad of ['2026-02-30', '2025-02-29', '1900-02-29', '2026-04-31', '2026-13-01', '2026-00-10', '2026-01-00'])
    t.regex(String(parseDateTime(bad)), /is not a calendar date/, bad);
  for (const bad of ['2026-01-01T24:00:00Z', '2026-01-01T10:60:00Z', '2026-01-01T10:00:60Z'])
    t.regex(String(parseDateTime(bad)), /not a valid time of day/, bad);
  t.regex(String(parseDateTime('2026-01-01T10:00:00+24:00')), /no valid offset/);
  for (const bad of ['yesterday', '2026-1-1', '2026-01-01T10:00:00', `${'9'.repeat(100)}`])
    t.regex(String(parseDateTime(bad)), /^expected an RFC 3339 date-time .* or a date .*, got '.{0,41}'$/, bad);
});

test('rolledOver: the key path of a TOML date the parser moved to another day, none for real ones', (t) => {
  const text = 'a = 2026-02-28\n[keys.k]\nexpires_at = 2026-02-30\n[[p]]\nd = 2026-04-31T10:00:00Z\n';
  t.deepEqual(rolledOver(parse(text), text), ['keys', 'k', 'expires_at']);
  const list = 'a = 2026-02-28\n[[p]]\nd = 2026-04-31T10:00:00+02:00\n';
  t.deepEqual(rolledOver(parse(list), list), ['p', 0, 'd']);
  const fine = 'a = 2024-02-29\nb = 2026-02-28T23:00:00-05:00\nc = 10:00:00\nd = 2026-03-01T10:00:00\n';
  t.is(rolledOver(parse(fine), fine), undefined);
});
