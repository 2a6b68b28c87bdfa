/**
 * Whether a year, month (1-12) and day name a day of the proleptic Gregorian calendar:
 * `Date.UTC` and `Date.parse` roll an impossible day over (2026-02-30 becomes March 2), so
 * every parser of user dates checks with this first.
 */
export function isCalendarDate(year: number, month: number, day: number): boolean {
  const d = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC maps years 0-99 to 1900-1999
  d.setUTCFullYear(year, month - 1, day);
  return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day;
}
