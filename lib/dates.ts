/**
 * Reading the dates users write (`expires_at`, query times, `start_date`), one way: each part
 * checked against the calendar (`Date.parse` rolls `2026-02-30` over to March 2).
 */

/** A date (00:00 UTC) or an RFC 3339 date-time with an offset (`T` or a space; seconds optional; `+0200` too). */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(?:([Zz])|([+-])(\d{2}):?(\d{2})))?$/;

/** The forms {@link parseDateTime} reads, for messages. */
export const DATE_TIME_FORMS = 'an RFC 3339 date-time (2027-01-01T00:00:00Z) or a date (2027-01-01)';

/** Epoch ms of a real calendar date or date-time, else a sentence saying what is wrong (quoting 40 characters at most). */
export function parseDateTime(text: string): number | string {
  const m = DATE_TIME.exec(text);
  if (!m) return `expected ${DATE_TIME_FORMS}, got '${text.length > 40 ? `${text.slice(0, 40)}…` : text}'`;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return `'${m[1]}-${m[2]}-${m[3]}' is not a calendar date`;
  if (m[4] === undefined) return utc(year, month, day, 0, 0, 0, 0);
  const [hour, minute, second] = [Number(m[4]), Number(m[5]), Number(m[6] ?? 0)];
  if (hour > 23 || minute > 59 || second > 59) return `'${text}' is not a valid time of day`;
  let offsetMin = 0;
  if (m[8] === undefined) {
    const [oh, om] = [Number(m[10]), Number(m[11])];
    if (oh > 23 || om > 59) return `'${text}' has no valid offset from UTC`;
    offsetMin = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const ms = m[7] === undefined ? 0 : Math.floor(Number(`0${m[7]}`) * 1000);
  return utc(year, month, day, hour, minute, second, ms) - offsetMin * 60_000;
}

/** Days in `month` (1-12) of `year`, Gregorian. */
function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Epoch ms of a UTC wall time; setUTCFullYear, because Date.UTC reads years 0-99 as 1900-1999. */
function utc(year: number, month: number, day: number, hour: number, minute: number, second: number, ms: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, minute, second, ms);
  return d.getTime();
}

/** The `YYYY-MM-DD` of a TOML date value (undefined for a time of day), checked against the text by {@link rolledOver}. */
function datePart(d: Date & { isTime?(): boolean }): string | undefined {
  if (d.isTime?.()) return undefined;
  // a TomlDate renders in its own offset (or none), as written; a plain Date in UTC
  return d.toISOString().slice(0, 10);
}

/** The key path of the first TOML date the parser rolled over (its day does not exist as written). */
export function rolledOver(value: unknown, text: string, path: PropertyKey[] = []): PropertyKey[] | undefined {
  if (value instanceof Date) {
    const day = datePart(value);
    return day !== undefined && !text.includes(day) ? path : undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  const list = Array.isArray(value);
  for (const [k, v] of Object.entries(value)) {
    const found = rolledOver(v, text, [...path, list ? Number(k) : k]);
    if (found) return found;
  }
  return undefined;
}
