// Overview: requests, tokens, spend, error rate, errors by code and p95 latency over a
// calendar range (today, yesterday, last 7 days, this month, last month, custom), in UTC or
// local time, in hour or day buckets, stacked by model or by key (GET /v1/usage and
// /v1/budget series; hour buckets summed here into the zone's days).
import { useMemo, useState } from 'preact/hooks';
import { api } from './api.js';
import { Chart, color } from './chart.js';
import { axisMs, axisUsd, count, ms, pct, usd } from './format.js';
import { cacheHitRates } from './cache-rate.js';
import { html } from './html.js';
import { priceSources } from './price-sources.js';
import { Problem, useLoad } from './load.js';
import { CsvButton, DAY, isoDate, RANGES, RangePicker, rangeOf, slot, toCsv, useRange } from './range.js';
/** Groups drawn on their own; the rest are summed as "other". */
const TOP = 8;

const label = (by, v) => (v === null || v === undefined || v === '' ? (by === 'model' ? '(unknown model)' : '(none)') : v);

/**
 * Dense bucket grid `r` ({grid: bucket starts, end}, range.js rangeOf) and, per group, the
 * values of `field` (a number, or a function of the entry) in each bucket; groups by their total over the range, largest first, beyond TOP summed into
 * "other (N)" (`other: true`). With `frame` (another toSeries result) the groups are
 * exactly the frame's: its top groups keep their rows, every other group is summed into the
 * frame's "other" row, so the same label means the same groups in every chart and table
 * (a group the frame lacks gets a row of its own after the frame's).
 */
export function toSeries(entries, by, field, r, frame) {
  const n = r.grid.length;
  const x = r.grid.map((t) => t / 1000);
  const byGroup = new Map();
  const value = typeof field === 'function' ? field : (e) => e[field] ?? 0;
  for (const e of entries ?? []) {
    const i = slot(r.grid, r.end, Date.parse(e.bucket_start));
    if (i < 0) continue;
    const g = by === null ? e.group : label(by, e[by]);
    let vals = byGroup.get(g);
    if (!vals) byGroup.set(g, (vals = new Array(n).fill(0)));
    vals[i] += value(e);
  }
  const total = (v) => v.reduce((a, b) => a + b, 0);
  if (frame) {
    const series = frame.series.map((s) => ({ label: s.label, color: s.color, other: s.other, values: new Array(n).fill(0) }));
    const rowOf = new Map(series.filter((s) => !s.other).map((s) => [s.label, s]));
    const other = series.find((s) => s.other);
    for (const [g, vals] of byGroup) {
      let row = rowOf.get(g) ?? other;
      if (!row) {
        row = { label: g, color: color(series.length), values: new Array(n).fill(0) };
        series.push(row);
        rowOf.set(g, row);
      }
      for (let i = 0; i < n; i++) row.values[i] += vals[i];
    }
    return { x, series };
  }
  const sorted = [...byGroup].sort((a, b) => total(b[1]) - total(a[1]) || (a[0] < b[0] ? -1 : 1));
  const series = sorted.slice(0, TOP).map(([g, values], i) => ({ label: g, values, color: color(i) }));
  if (sorted.length > TOP) {
    const rest = new Array(n).fill(0);
    for (const [, v] of sorted.slice(TOP)) for (let i = 0; i < v.length; i++) rest[i] += v[i];
    series.push({ label: `other (${sorted.length - TOP})`, values: rest, color: color(TOP), other: true });
  }
  return { x, series };
}

function Tile({ label: l, value, hint }) {
  return html`<div class="tile"><div class="label">${l}</div><div class="value">${value}</div>${hint ? html`<div class="hint">${hint}</div>` : null}</div>`;
}

/**
 * p95 latency per model on the API's own buckets (hours, or UTC days: percentiles of
 * different buckets cannot be added), null where a model had no answered request.
 */
function latencySeries(entries, r, colors) {
  const daily = r.bucket === 'day';
  const grid = [];
  if (!daily) grid.push(...r.grid);
  else for (let t = r.from - (r.from % DAY); t < r.end; t += DAY) grid.push(t);
  const byModel = new Map();
  for (const e of entries ?? []) {
    const i = slot(grid, r.end, Date.parse(e.bucket_start));
    if (i < 0) continue;
    let vals = byModel.get(e.model);
    if (!vals) byModel.set(e.model, (vals = new Array(grid.length).fill(null)));
    vals[i] = e.latency_p95_ms;
  }
  const series = [...byModel]
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .map(([m, values], i) => ({ label: label('model', m), values, color: colors.get(label('model', m)) ?? color(colors.size + i) }));
  return { daily, x: grid.map((t) => t / 1000), series };
}

/** Entries `{bucket_start, error_codes: {code: n}}` as one entry per (bucket, code), grouped by `group` (toSeries with by = null). */
const byCode = (usage) => (usage ?? []).flatMap((e) => Object.entries(e.error_codes ?? {}).map(([group, n]) => ({ bucket_start: e.bucket_start, group, n })));

export function Overview() {
  const [rv, setRv] = useRange('today');
  const [by, setBy] = useState('model');
  const { data, error, loading } = useLoad(
    async () => {
      const r = rangeOf(rv.range, rv.utc, rv.custom);
      // hour buckets, summed here into the zone's days: the API's days are UTC days
      const q = { bucket: 'hour', group_by: by, from: new Date(r.from).toISOString(), to: new Date(r.end).toISOString() };
      // percentiles cannot be summed: latency comes in the API's own buckets (UTC days beyond two days)
      const lq = { metrics: 'latency', bucket: r.bucket, group_by: 'model', from: q.from, to: q.to };
      const [usage, spend, latency, models] = await Promise.all([
        api.usageSeries(q),
        api.budgetSeries(q),
        api.usageSeries(lq).catch(() => null),
        api.models().catch(() => null),
      ]);
      return { r, usage, spend, latency, models };
    },
    [rv.range, rv.utc, rv.custom.from, rv.custom.to, by],
    { refreshMs: 30_000 },
  );

  const view = useMemo(() => {
    if (!data) return null;
    const { r, usage, spend, latency } = data;
    // the requests chart fixes the groups (and colours) of every other chart and of the table
    const requests = toSeries(usage, by, 'requests', r);
    const tokens = toSeries(usage, by, 'total_tokens', r, requests);
    const spent = spend ? toSeries(spend, by, 'spent_usd', r, requests) : null;
    const errors = toSeries(usage, by, 'errors', r, requests);
    const codes = toSeries(byCode(usage), null, 'n', r);
    // a model keeps its colour from the requests chart (when stacked by model)
    const p95 = latencySeries(latency, r, new Map(by === 'model' ? requests.series.map((s) => [s.label, s.color]) : []));
    const sum = (s) => s.series.reduce((a, g) => a + g.values.reduce((x, y) => x + y, 0), 0);
    const reqAt = requests.x.map((_, i) => requests.series.reduce((a, g) => a + g.values[i], 0));
    const errAt = errors.x.map((_, i) => errors.series.reduce((a, g) => a + g.values[i], 0));
    const rate = { x: requests.x, series: [{ label: 'error rate', values: reqAt.map((n, i) => (n ? errAt[i] / n : null)) }] };
    const totals = { requests: sum(requests), tokens: sum(tokens), spend: spent ? sum(spent) : null, errors: sum(errors) };
    const prompt = (usage ?? []).reduce((a, e) => a + e.prompt_tokens, 0);
    // rows by position: toSeries with a frame keeps the frame's rows in order (then any extra group)
    const add = (v) => v.reduce((a, b) => a + b, 0);
    const rowsOf = spent && spent.series.length > requests.series.length ? spent : requests;
    const hits = cacheHitRates(usage, (e) => label(by, e[by]));
    const groups = rowsOf.series.map((g, i) => ({
      label: g.label,
      color: g.color ?? color(i),
      requests: requests.series[i] ? add(requests.series[i].values) : 0,
      tokens: tokens.series[i] ? add(tokens.series[i].values) : 0,
      errors: errors.series[i] ? add(errors.series[i].values) : 0,
      spend: spent ? (spent.series[i] ? add(spent.series[i].values) : 0) : null,
      // "other (n)" sums several groups: no one rate
      cacheHit: hits.groups.has(g.label) ? hits.groups.get(g.label) : undefined,
    }));
    return { r, requests, tokens, spent, rate, codes, p95, totals, prompt, groups, cacheHit: hits.all };
  }, [data, by]);
  const rangeLabel = RANGES.find(([v]) => v === rv.range)?.[1] ?? '';
  const zone = rv.utc ? 'UTC' : 'local time';
  const csv = () =>
    toCsv(
      [by, 'requests', 'tokens', 'spend_usd', 'errors', 'from', 'to'],
      view.groups.map((g) => [g.label, g.requests, g.tokens, g.spend ?? '', g.errors, new Date(view.r.from).toISOString(), new Date(view.r.end).toISOString()]),
    );

  const noUsage = data && data.usage === null;
  const zp = view ? { utc: rv.utc, daily: view.r.bucket === 'day' } : {};
  return html`<div class="page-head">
      <div><h1>Overview</h1><div class="sub">Traffic through this gateway, per ${view?.r.bucket ?? 'hour'} (${zone})${by === 'model' ? ', by model' : ', by key'}.</div></div>
      <div class="controls">
        <${RangePicker} value=${rv} onChange=${setRv} />
        <div class="seg" role="group" aria-label="Stack by">
          ${[
            ['model', 'By model'],
            ['key', 'By key'],
          ].map(([v, l]) => html`<button aria-pressed=${by === v} onClick=${() => setBy(v)}>${l}</button>`)}
        </div>
      </div>
    </div>
    <${Problem} error=${error} />
    ${noUsage ? html`<div class="alert info">Usage over time needs the usage extension: add <code>[extensions.usage]</code> to the gateway config and restart.</div>` : null}
    ${
      !view
        ? loading
          ? html`<p class="loading">Loading…</p>`
          : null
        : html`
      <div class="tiles">
        <${Tile} label="Requests" value=${count(view.totals.requests)} hint=${`${count(view.totals.errors)} failed`} />
        <${Tile} label="Tokens" value=${count(view.totals.tokens)} hint=${`${count(view.prompt)} prompt · ${count(view.totals.tokens - view.prompt)} completion`} />
        <${Tile} label="Spend" value=${view.totals.spend === null ? '–' : usd(view.totals.spend)} hint=${view.totals.spend === null ? 'budget extension off' : priceSources(data.models)} />
        <${Tile} label="Error rate" value=${view.totals.requests ? pct(view.totals.errors / view.totals.requests) : '–'} hint="failed / all requests" />
        <${Tile} label="Cache hit rate" value=${pct(view.cacheHit)} hint="cached / prompt tokens" />
      </div>
      <div class="grid">
        <${Chart} id="requests" title="Requests" ...${zp} x=${view.requests.x} series=${view.requests.series} stacked integer format=${count} />
        <${Chart} id="tokens" title="Tokens" ...${zp} x=${view.tokens.x} series=${view.tokens.series} stacked integer format=${count} />
        ${
          view.spent
            ? html`<${Chart} id="spend" title="Spend (USD)" ...${zp} x=${view.spent.x} series=${view.spent.series} stacked format=${usd} axis=${axisUsd} />`
            : html`<${Chart} id="spend" title="Spend (USD)" x=${[]} series=${[]} note="Spend over time needs the budget extension ([extensions.budget])." />`
        }
        <${Chart} id="errors" title="Error rate" ...${zp} x=${view.rate.x} series=${view.rate.series} kind="line" format=${pct} axis=${(v) => `${+(v * 100).toPrecision(2)}%`} emptyMax=${0.05} />
        <${Chart} id="error-codes" title="Errors by code" ...${zp} x=${view.codes.x} series=${view.codes.series} stacked integer format=${count} note=${view.codes.series.length ? undefined : 'No failed requests in this range.'} />
        <${Chart} id="latency" title=${`Latency p95 by model${view.p95.daily ? ' (UTC days)' : ''}`} utc=${rv.utc || view.p95.daily} daily=${view.p95.daily} x=${view.p95.x} series=${view.p95.series} kind="line" format=${ms} axis=${axisMs} note=${view.p95.series.length ? undefined : 'No answered requests in this range.'} />
      </div>
      <section class="panel">
        <div class="panel-head"><h2>${by === 'model' ? 'Models' : 'Keys'} in this range</h2><span class="muted">${rangeLabel.toLowerCase()}: ${isoDate(view.r.from, rv.utc)} – ${isoDate(view.r.end - 1, rv.utc)} (${zone})</span>${view.groups.length ? html`<${CsvButton} name=${`gw-usage-${by}-${isoDate(view.r.from, rv.utc)}.csv`} csv=${csv} />` : null}</div>
        ${
          view.groups.length === 0
            ? html`<p class="empty">No requests in this range yet.</p>`
            : html`<table class="cards">
          <thead><tr><th>${by === 'model' ? 'Model' : 'Key'}</th><th class="num">Requests</th><th class="num">Tokens</th><th class="num">Spend</th><th class="num" title="cached / prompt tokens">Cache hit</th><th class="num">Errors</th></tr></thead>
          <tbody>${view.groups.map(
            (g) => html`<tr>
            <td data-label=${by === 'model' ? 'Model' : 'Key'}><span class="chips"><span class="chip" style=${{ borderColor: g.color }}>${g.label}</span></span></td>
            <td class="num" data-label="Requests">${count(g.requests)}</td>
            <td class="num" data-label="Tokens">${count(g.tokens)}</td>
            <td class="num" data-label="Spend">${g.spend === null ? '–' : usd(g.spend)}</td>
            <td class="num" data-label="Cache hit">${pct(g.cacheHit)}</td>
            <td class="num" data-label="Errors">${g.errors ? html`<span class="badge bad">${count(g.errors)} · ${pct(g.errors / g.requests)}</span>` : '0'}</td>
          </tr>`,
          )}</tbody>
        </table>`
        }
      </section>`
    }`;
}
