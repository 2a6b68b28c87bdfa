// Time ranges the way operators ask about them (today, yesterday, last 7 days, this month,
// last month, custom dates), in UTC or the browser's zone (budget periods are UTC), the
// bucket grid of a range (hours for a day or two, days beyond), and CSV export of a table.
import { useState } from 'preact/hooks';
import { html } from './html.js';

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

export const RANGES = [
  ['today', 'Today'],
  ['yesterday', 'Yesterday'],
  ['7d', 'Last 7 days'],
  ['month', 'This month'],
  ['lastmonth', 'Last month'],
  ['custom', 'Custom'],
];

/** The browser's zone name ("Europe/Paris"). */
export const localZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'local';

/** Midnight starting the day of `ms` in the zone (`utc`: UTC, else the browser's), with `days` added. */
function dayStart(ms, utc, days = 0) {
  const d = new Date(ms);
  return utc ? Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + days) : new Date(d.getFullYear(), d.getMonth(), d.getDate() + days).getTime();
}
function monthStart(ms, utc, months = 0) {
  const d = new Date(ms);
  return utc ? Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1) : new Date(d.getFullYear(), d.getMonth() + months, 1).getTime();
}
/** "2026-01-31" in the zone → its midnight, epoch ms (NaN when not a date). */
function dateStart(s, utc) {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s ?? '');
  if (!m) return NaN;
  return utc ? Date.UTC(+m[1], +m[2] - 1, +m[3]) : new Date(+m[1], +m[2] - 1, +m[3]).getTime();
}
/** A day as "2026-01-31" in the zone. */
export function isoDate(ms, utc) {
  const d = new Date(ms);
  const p = (n) => String(n).padStart(2, '0');
  return utc ? `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())}` : `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

/**
 * A range's bounds and bucket grid: `{from, end, bucket: 'hour'|'day', grid}` where `grid`
 * holds the bucket starts (epoch ms) of [from, end) in the zone (days are the zone's
 * midnights, 23 or 25 hours long across a DST change). `custom`: `{from, to}` dates, both
 * days included. Ranges of up to two days are in hours, longer ones in days.
 */
export function rangeOf(range, utc, custom, now = Date.now()) {
  let from;
  let end;
  if (range === 'today') [from, end] = [dayStart(now, utc), dayStart(now, utc, 1)];
  else if (range === 'yesterday') [from, end] = [dayStart(now, utc, -1), dayStart(now, utc)];
  else if (range === '7d') [from, end] = [dayStart(now, utc, -6), dayStart(now, utc, 1)];
  else if (range === 'month') [from, end] = [monthStart(now, utc), dayStart(now, utc, 1)];
  else if (range === 'lastmonth') [from, end] = [monthStart(now, utc, -1), monthStart(now, utc)];
  else {
    from = dateStart(custom?.from, utc);
    end = dateStart(custom?.to, utc);
    if (!(from <= end)) [from, end] = [dayStart(now, utc, -6), dayStart(now, utc)];
    end = dayStart(end, utc, 1);
  }
  const bucket = end - from <= 2 * DAY + HOUR ? 'hour' : 'day';
  const grid = [];
  if (bucket === 'hour') for (let t = from; t < end; t += HOUR) grid.push(t);
  else for (let i = 0, t = from; t < end; t = dayStart(from, utc, ++i)) grid.push(t);
  return { from, end, bucket, grid };
}

/** Index of the grid bucket holding `ms` (-1 when outside). */
export function slot(grid, end, ms) {
  if (ms < grid[0] || ms >= end) return -1;
  let lo = 0;
  let hi = grid.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (grid[mid] <= ms) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The range picker, the custom dates and the UTC/local switch; `value` = {range, utc, custom}. */
export function RangePicker({ value, onChange }) {
  const { range, utc, custom } = value;
  const set = (patch) => onChange({ ...value, ...patch });
  return html`<div class="seg" role="group" aria-label="Range">
      ${RANGES.map(([v, l]) => html`<button aria-pressed=${range === v} onClick=${() => set({ range: v })}>${l}</button>`)}
    </div>
    ${
      range === 'custom'
        ? html`<span class="dates"><label>From <input type="date" name="from" value=${custom.from} onChange=${(e) => set({ custom: { ...custom, from: e.currentTarget.value } })} /></label>
      <label>To <input type="date" name="to" value=${custom.to} onChange=${(e) => set({ custom: { ...custom, to: e.currentTarget.value } })} /></label></span>`
        : null
    }
    <div class="seg" role="group" aria-label="Time zone">
      <button aria-pressed=${utc} onClick=${() => set({ utc: true })} title="Budget periods are UTC">UTC</button>
      <button aria-pressed=${!utc} onClick=${() => set({ utc: false })} title=${localZone()}>Local</button>
    </div>`;
}

const ZONE = 'gw.zone';
/**
 * The range state of a page: UTC by default (as budget periods), the zone choice kept for the
 * next visit. `custom`: the custom range's first dates ({from, to}, "2026-01-31"), else the last 7 days.
 */
export function useRange(initial = 'today', custom = undefined) {
  const now = Date.now();
  const [value, setValue] = useState(() => ({
    range: initial,
    utc: localStorage.getItem(ZONE) !== 'local',
    custom: custom ?? { from: isoDate(now - 6 * DAY, true), to: isoDate(now, true) },
  }));
  const onChange = (v) => {
    localStorage.setItem(ZONE, v.utc ? 'utc' : 'local');
    setValue(v);
  };
  return [value, onChange];
}

/** One CSV field (RFC 4180 quoting). */
const field = (v) => {
  const s = v === null || v === undefined ? '' : String(v);
  return /[",\n\r]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
};
/** `rows` (arrays) under `header` as CSV text. */
export const toCsv = (header, rows) => [header, ...rows].map((r) => r.map(field).join(',')).join('\r\n');

/** A button that downloads `csv()` as `name`. */
export function CsvButton({ name, csv }) {
  const go = () => {
    const url = URL.createObjectURL(new Blob([csv()], { type: 'text/csv' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = name;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };
  return html`<button class="small" onClick=${go}>Download CSV</button>`;
}
