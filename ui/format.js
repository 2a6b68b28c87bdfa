// Number and time formatting for the console (the browser's locale).

const compact = new Intl.NumberFormat(undefined, { notation: 'compact', maximumFractionDigits: 1 });
const whole = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });

/** 1234 → "1.2K" (counts). */
export const count = (n) => (n === null || n === undefined ? '–' : Math.abs(n) < 10_000 ? whole.format(n) : compact.format(n));

/** USD with cents, or more digits below one cent. */
export function usd(n) {
  if (n === null || n === undefined) return '–';
  if (n === 0) return '$0';
  const a = Math.abs(n);
  const digits = a >= 1 ? 2 : a >= 0.01 ? 3 : a >= 0.0001 ? 5 : 7;
  return `$${n.toFixed(digits)}`;
}

/** Milliseconds: "850 ms", "1.24 s". */
export function ms(n) {
  if (n === null || n === undefined) return '–';
  if (n < 10) return `${n.toFixed(2)} ms`;
  if (n < 1000) return `${Math.round(n)} ms`;
  return `${(n / 1000).toFixed(n < 10_000 ? 2 : 1)} s`;
}

/** 0.0123 → "1.2%". */
export const pct = (r) => (r === null || r === undefined || Number.isNaN(r) ? '–' : r === 0 ? '0%' : `${(r * 100).toFixed(r < 0.1 ? 1 : 0)}%`);

/** Axis ticks: short forms of the above (the axis step already says how precise). */
export const axisMs = (v) => (v === 0 ? '0' : v < 1000 ? `${+v.toPrecision(3)} ms` : `${+(v / 1000).toPrecision(3)} s`);
export const axisUsd = (v) => (v === 0 ? '$0' : `$${+v.toPrecision(3)}`);

const dayTimeFmt = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });

/** A log time, always with its date ("Nov 27, 12:50:06"): a time without a date is ambiguous across midnight. */
export const when = (iso) => dayTimeFmt.format(new Date(iso));

/** Hour bucket label: "Mon 14:00". */
const hourFmt = new Intl.DateTimeFormat(undefined, { weekday: 'short', hour: '2-digit', minute: '2-digit' });
export const hour = (ms) => hourFmt.format(new Date(ms));
