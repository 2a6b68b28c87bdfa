// A time-series chart: uPlot (global `uPlot`, loaded from node_modules by index.html) in a
// preact component, with its own legend (values at the cursor) and the same numbers as a
// table under "Data" (for screen readers, copying, and the browser tests). Stacked bars
// draw cumulative values, largest first, so each group paints over the one above it.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { html } from './html.js';

/** Series colours, readable on the light and the dark background alike. */
export const PALETTE = ['#3b82f6', '#f59e0b', '#10b981', '#ef4444', '#8b5cf6', '#06b6d4', '#ec4899', '#84cc16', '#f97316', '#94a3b8'];
export const color = (i) => PALETTE[i % PALETTE.length];

const INTEGER_STEPS = [
  1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1e3, 2e3, 2.5e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6, 2e6, 5e6, 1e7, 2e7, 5e7, 1e8, 1e9, 1e10,
];

const dark = () => matchMedia('(prefers-color-scheme: dark)').matches;

/** Re-renders when the colour scheme changes (charts read their colours from CSS). */
function useScheme() {
  const [scheme, setScheme] = useState(dark());
  useEffect(() => {
    const m = matchMedia('(prefers-color-scheme: dark)');
    const on = () => setScheme(m.matches);
    m.addEventListener('change', on);
    return () => m.removeEventListener('change', on);
  }, []);
  return scheme;
}

const css = (name) => getComputedStyle(document.documentElement).getPropertyValue(name).trim();

/** The zone a chart's times are in, as its caption says it: "UTC" or the browser's zone name. */
const zoneName = (utc) => (utc ? 'UTC' : Intl.DateTimeFormat().resolvedOptions().timeZone || 'local time');

/**
 * props: id (data-chart), title, x (epoch seconds), series [{label, values}], stacked,
 * kind ('bars' | 'line'), format (value → text), axis (value → short text), height, note,
 * utc (times in UTC, else the browser's zone; the caption names it), daily (buckets are days),
 * hrefOf (series → a link for its legend entry, or null: e.g. its requests in the log).
 */
export function Chart({
  id,
  title,
  x,
  series,
  stacked = false,
  kind = 'bars',
  format = String,
  axis,
  integer = false,
  emptyMax = 1,
  height = 200,
  note,
  utc = false,
  daily = false,
  hrefOf,
}) {
  const box = useRef(null);
  const plot = useRef(null);
  const [cursor, setCursor] = useState(null);
  const scheme = useScheme();
  // legend without a cursor: totals for bars, the latest value for lines
  const resting = useMemo(
    () => series.map((s) => (kind === 'bars' ? s.values.reduce((a, v) => a + (v ?? 0), 0) : (s.values.findLast((v) => v !== null && v !== undefined) ?? null))),
    [series, kind],
  );

  useEffect(() => {
    const el = box.current;
    if (!el || !window.uPlot || x.length === 0) return undefined;
    const n = series.length;
    let acc = x.map(() => 0);
    const cum = series.map((s) => (acc = acc.map((a, i) => a + (s.values[i] ?? 0))));
    const order = stacked ? [...Array(n).keys()].reverse() : [...Array(n).keys()];
    const data = [x, ...order.map((i) => (stacked ? cum[i] : series[i].values))];
    const bars = kind === 'bars' ? window.uPlot.paths.bars({ size: [0.82, 48], gap: 1 }) : undefined;
    const ink = css('--muted');
    const grid = css('--grid');
    const opts = {
      width: Math.max(200, el.clientWidth),
      height,
      legend: { show: false },
      cursor: { points: { show: kind === 'line' }, drag: { x: false, y: false } },
      // uPlot draws local times; in UTC mode each time is shifted into a UTC-zoned date
      tzDate: utc ? (ts) => window.uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC') : undefined,
      scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : emptyMax] } },
      axes: [
        { stroke: ink, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid } },
        {
          stroke: ink,
          grid: { stroke: grid, width: 1 },
          ticks: { show: false },
          // counts step by whole numbers; the axis is as wide as its longest label
          incrs: integer ? INTEGER_STEPS : undefined,
          size: (_u, values) => (values ? Math.max(36, 12 + 7 * Math.max(...values.map((v) => String(v).length))) : 36),
          values: (_u, ticks) => ticks.map((t) => (axis ?? format)(t)),
        },
      ],
      series: [
        {},
        ...order.map((i) => ({
          label: series[i].label,
          stroke: series[i].color ?? color(i),
          width: kind === 'line' ? 2 : 0,
          fill: kind === 'bars' ? (series[i].color ?? color(i)) : undefined,
          paths: bars,
          points: { show: kind === 'line', size: 5, fill: series[i].color ?? color(i) },
          spanGaps: false,
        })),
      ],
      hooks: { setCursor: [(u) => setCursor(u.cursor.idx ?? null)] },
    };
    const u = new window.uPlot(opts, data, el);
    plot.current = u;
    el._uplot = u; // the browser tests read the drawn points
    const ro = new ResizeObserver(() => u.setSize({ width: Math.max(200, el.clientWidth), height }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      u.destroy();
      plot.current = null;
      el._uplot = undefined;
    };
  }, [x, series, stacked, kind, height, scheme, integer, emptyMax, utc]);

  const idx = cursor !== null && cursor >= 0 && cursor < x.length ? cursor : null;
  const timeZone = utc ? 'UTC' : undefined;
  const at = (t) =>
    new Date(t * 1000).toLocaleString(
      undefined,
      daily ? { timeZone, year: 'numeric', month: 'short', day: 'numeric' } : { timeZone, month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' },
    );
  const rows = x.map((t, i) => [t, series.map((s) => s.values[i])]).filter(([, vs]) => vs.some((v) => v !== null && v !== undefined && v !== 0));
  return html`<figure class="chart" data-chart=${id}>
    <figcaption>
      <span class="chart-title">${title}</span>
      <span class="chart-zone muted" data-zone=${utc ? 'UTC' : 'local'}>${zoneName(utc)}</span>
      ${idx !== null ? html`<span class="chart-at">${at(x[idx])}</span>` : null}
    </figcaption>
    <ul class="legend">
      ${series.map((s, i) => {
        const href = hrefOf?.(s);
        const swatch = html`<i style=${{ background: series[i].color ?? color(i) }}></i>`;
        return html`<li>${href ? html`<a href=${href} title=${`Requests: ${s.label}`}>${swatch}${s.label}</a>` : html`${swatch}${s.label}`}<b>${format(idx !== null ? s.values[idx] : resting[i])}</b></li>`;
      })}
    </ul>
    ${x.length === 0 || series.length === 0 ? html`<p class="empty">${note ?? 'No data in this range yet.'}</p>` : html`<div class="plot" ref=${box} role="img" aria-label=${`${title} chart`}></div>`}
    ${note && series.length > 0 ? html`<p class="note">${note}</p>` : null}
    ${
      rows.length > 0
        ? html`<details class="data"><summary>Data</summary>
      <div class="scroll"><table>
        <thead><tr><th>Time</th>${series.map((s) => html`<th>${s.label}</th>`)}</tr></thead>
        <tbody>${rows.map(([t, vs]) => html`<tr data-time=${new Date(t * 1000).toISOString()}><td>${at(t)}</td>${vs.map((v, i) => html`<td data-series=${series[i].label} data-value=${v ?? ''}>${format(v)}</td>`)}</tr>`)}</tbody>
      </table></div>
    </details>`
        : null
    }
  </figure>`;
}
