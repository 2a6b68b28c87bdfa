// Overview: requests, tokens, spend, error rate, errors by code and p95 latency over a
// calendar range (today, yesterday, last 7 days, this month, last month, custom), in UTC or
// local time, in hour or day buckets, stacked by model, by key or by a tag of the keys (GET
// /v1/usage and /v1/budget series; hour buckets summed here into the zone's days). Every
// model, key, tag and error code in a legend or the table links to the request log filtered
// to it and to the range; the view (range, grouping) is kept in the URL hash.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api } from './api.js';
import { Chart, color } from './chart.js';
import { axisMs, axisUsd, count, ms, pct, usd } from './format.js';
import { cacheHitRates } from './cache-rate.js';
import { hashParams, replaceView } from './hash.js';
import { html } from './html.js';
import { priceSources } from './price-sources.js';
import { Problem, useLoad } from './load.js';
import { CsvButton, DAY, isoDate, RANGES, RangePicker, rangeOf, slot, toCsv, useRange } from './range.js';
import { requestsHref } from './requests.js';
/** Groups drawn on their own; the rest are summed as "other". */
const TOP = 8;

const label = (by, v) => (v === null || v === undefined || v === '' ? (by === 'model' ? '(unknown model)' : '(none)') : v);

/** `tag:team` → `team`; undefined for `model` and `key`. */
const tagName = (by) => (by.startsWith('tag:') ? by.slice(4) : undefined);

/**
 * The request-log filter of one group of a `by` grouping, from its label: `{model}`, `{key}`
 * or `{tag: 'name:value'}` (`'name:'` for keys without the tag); null for a group the log
 * cannot select (an unknown model, "other (N)").
 */
export function groupFilter(by, group) {
  if (group.other) return null;
  const name = tagName(by);
  if (name !== undefined) return { tag: `${name}:${group.label === '(none)' ? '' : group.label}` };
  if (by === 'model') return group.label === '(unknown model)' ? null : { model: group.label };
  return group.label === '(none)' ? null : { key: group.label };
}

/**
 * Failures by error code per group label (`{code: n}` summed over the range), from usage
 * entries carrying `error_codes`; "other (N)" rows get the codes of every group not shown on its own.
 */
function codesPerGroup(entries, by, rows) {
  const byLabel = new Map();
  for (const e of entries ?? []) {
    const g = label(by, e[by]);
    let codes = byLabel.get(g);
    if (!codes) byLabel.set(g, (codes = {}));
    for (const [code, n] of Object.entries(e.error_codes ?? {})) codes[code] = (codes[code] ?? 0) + n;
  }
  const shown = new Set(rows.filter((r) => !r.other).map((r) => r.label));
  const rest = {};
  for (const [g, codes] of byLabel) if (!shown.has(g)) for (const [code, n] of Object.entries(codes)) rest[code] = (rest[code] ?? 0) + n;
  return (row) => (row.other ? rest : (byLabel.get(row.label) ?? {}));
}

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

/** The grouping of the charts and the table: by model, by key, or by one tag of the keys (a select when they carry several). */
function GroupPicker({ by, tagNames, onChange }) {
  const tag = tagName(by);
  const names = tag === undefined || tagNames.includes(tag) ? tagNames : [...tagNames, tag];
  return html`<div class="seg" role="group" aria-label="Stack by">
      <button aria-pressed=${by === 'model'} onClick=${() => onChange('model')}>By model</button>
      <button aria-pressed=${by === 'key'} onClick=${() => onChange('key')}>By key</button>
      <button aria-pressed=${tag !== undefined} disabled=${names.length === 0} title=${names.length ? 'Keys grouped by a tag (e.g. team)' : 'No key has tags yet (Keys page: tags)'}
        onClick=${() => onChange(`tag:${tag ?? names[0]}`)}>By tag</button>
    </div>
    ${
      tag !== undefined && names.length > 1
        ? html`<label class="inline">Tag <select name="group-tag" aria-label="Tag" value=${tag} onChange=${(e) => onChange(`tag:${e.currentTarget.value}`)}>
      ${names.map((n) => html`<option value=${n}>${n}</option>`)}
    </select></label>`
        : null
    }`;
}

/** A group's name as a link to its requests in the range (plain text when the log cannot select it). */
function GroupLink({ group, filter, r }) {
  const chip = html`<span class="chip" style=${{ borderColor: group.color }}>${group.label}</span>`;
  return filter ? html`<a class="drill" href=${requestsHref(filter, r.from, r.end)} title=${`Requests of ${group.label} in this range`}>${chip}</a>` : chip;
}

/** Failures of a group by error code, each a link to those requests (most frequent first). */
function ErrorCodes({ codes, filter, r }) {
  const list = Object.entries(codes).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  if (list.length === 0) return html`<span class="muted">–</span>`;
  return html`<span class="chips codes">${list.map(([code, n]) =>
    filter
      ? html`<a class="chip code" href=${requestsHref({ ...filter, error_code: code }, r.from, r.end)} data-code=${code}>${code} <b>${count(n)}</b></a>`
      : html`<span class="chip code" data-code=${code}>${code} <b>${count(n)}</b></span>`,
  )}</span>`;
}

const GROUPING = /^(model|key|tag:[A-Za-z0-9_.-]{1,64})$/;

export function Overview() {
  // the view from the hash (a link, or back from a drill-down), else today by model
  const initial = useMemo(() => hashParams(), []);
  const [rv, setRv] = useRange(
    RANGES.some(([v]) => v === initial.range) ? initial.range : 'today',
    initial.range === 'custom' && initial.from && initial.to ? { from: initial.from, to: initial.to } : undefined,
  );
  const [by, setBy] = useState(GROUPING.test(initial.by ?? '') ? initial.by : 'model');
  useEffect(() => {
    const custom = rv.range === 'custom' ? rv.custom : {};
    replaceView('overview', { range: rv.range === 'today' ? '' : rv.range, from: custom.from, to: custom.to, by: by === 'model' ? '' : by });
  }, [rv.range, rv.custom.from, rv.custom.to, by]);
  const keys = useLoad(() => api.keys(), []);
  const tagNames = useMemo(() => [...new Set((keys.data ?? []).flatMap((k) => Object.keys(k.tags ?? {})))].sort(), [keys.data]);
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
      return { r, by, usage, spend, latency, models };
    },
    [rv.range, rv.utc, rv.custom.from, rv.custom.to, by],
    { refreshMs: 30_000 },
  );

  const view = useMemo(() => {
    if (!data) return null;
    // the grouping the data was loaded for (the picker may already show the next one)
    const { r, by, usage, spend, latency } = data;
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
    const codesOf = codesPerGroup(usage, by, rowsOf.series);
    const groups = rowsOf.series.map((g, i) => ({
      label: g.label,
      other: g.other,
      color: g.color ?? color(i),
      requests: requests.series[i] ? add(requests.series[i].values) : 0,
      tokens: tokens.series[i] ? add(tokens.series[i].values) : 0,
      errors: errors.series[i] ? add(errors.series[i].values) : 0,
      codes: codesOf(g),
      spend: spent ? (spent.series[i] ? add(spent.series[i].values) : 0) : null,
      // "other (n)" sums several groups: no one rate
      cacheHit: hits.groups.has(g.label) ? hits.groups.get(g.label) : undefined,
    }));
    return { r, by, requests, tokens, spent, rate, codes, p95, totals, prompt, groups, cacheHit: hits.all };
  }, [data]);
  const rangeLabel = RANGES.find(([v]) => v === rv.range)?.[1] ?? '';
  const zone = rv.utc ? 'UTC' : 'local time';
  const shownBy = view?.by ?? by;
  const groupTitle = shownBy === 'model' ? 'Model' : shownBy === 'key' ? 'Key' : `Tag ${tagName(shownBy)}`;
  const csv = () =>
    toCsv(
      [shownBy, 'requests', 'tokens', 'spend_usd', 'errors', 'error_codes', 'from', 'to'],
      view.groups.map((g) => [
        g.label,
        g.requests,
        g.tokens,
        g.spend ?? '',
        g.errors,
        Object.entries(g.codes)
          .map(([c, n]) => `${c}:${n}`)
          .join(' '),
        new Date(view.r.from).toISOString(),
        new Date(view.r.end).toISOString(),
      ]),
    );
  // links to the request log: a group (or the whole range) and the range's bounds
  const linkTo = (filter) => (filter ? requestsHref(filter, view.r.from, view.r.end) : null);
  const groupHref = (s) => linkTo(groupFilter(view.by, s));

  const noUsage = data && data.usage === null;
  const zp = view ? { utc: rv.utc, daily: view.r.bucket === 'day' } : {};
  return html`<div class="page-head">
      <div><h1>Overview</h1><div class="sub">Traffic through this gateway, per ${view?.r.bucket ?? 'hour'} (${zone}), by ${shownBy === 'model' ? 'model' : shownBy === 'key' ? 'key' : `tag ${tagName(shownBy)}`}.</div></div>
      <div class="controls">
        <${RangePicker} value=${rv} onChange=${setRv} />
        <${GroupPicker} by=${by} tagNames=${tagNames} onChange=${setBy} />
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
        <${Chart} id="requests" title="Requests" ...${zp} x=${view.requests.x} series=${view.requests.series} stacked integer format=${count} hrefOf=${groupHref} />
        <${Chart} id="tokens" title="Tokens" ...${zp} x=${view.tokens.x} series=${view.tokens.series} stacked integer format=${count} hrefOf=${groupHref} />
        ${
          view.spent
            ? html`<${Chart} id="spend" title="Spend (USD)" ...${zp} x=${view.spent.x} series=${view.spent.series} stacked format=${usd} axis=${axisUsd} hrefOf=${groupHref} />`
            : html`<${Chart} id="spend" title="Spend (USD)" x=${[]} series=${[]} note="Spend over time needs the budget extension ([extensions.budget])." />`
        }
        <${Chart} id="errors" title="Error rate" ...${zp} x=${view.rate.x} series=${view.rate.series} kind="line" format=${pct} axis=${(v) => `${+(v * 100).toPrecision(2)}%`} emptyMax=${0.05} hrefOf=${() => linkTo({ status: 'error' })} />
        <${Chart} id="error-codes" title="Errors by code" ...${zp} x=${view.codes.x} series=${view.codes.series} stacked integer format=${count} note=${view.codes.series.length ? undefined : 'No failed requests in this range.'} hrefOf=${(s) => (s.other ? null : linkTo({ error_code: s.label }))} />
        <${Chart} id="latency" title=${`Latency p95 by model${view.p95.daily ? ' (UTC days)' : ''}`} utc=${rv.utc || view.p95.daily} daily=${view.p95.daily} x=${view.p95.x} series=${view.p95.series} kind="line" format=${ms} axis=${axisMs} note=${view.p95.series.length ? undefined : 'No answered requests in this range.'} hrefOf=${(s) => linkTo(groupFilter('model', s))} />
      </div>
      <section class="panel">
        <div class="panel-head"><h2>${shownBy === 'model' ? 'Models' : shownBy === 'key' ? 'Keys' : `Keys by tag ${tagName(shownBy)}`} in this range</h2><span class="muted">${rangeLabel.toLowerCase()}: ${isoDate(view.r.from, rv.utc)} – ${isoDate(view.r.end - 1, rv.utc)} (${zone})</span>${view.groups.length ? html`<${CsvButton} name=${`gw-usage-${shownBy.replace(':', '-')}-${isoDate(view.r.from, rv.utc)}.csv`} csv=${csv} />` : null}</div>
        ${
          view.groups.length === 0
            ? html`<p class="empty">No requests in this range yet.</p>`
            : html`<div class="scroll"><table class="cards groups">
          <thead><tr><th>${groupTitle}</th><th class="num">Requests</th><th class="num">Tokens</th><th class="num">Spend</th><th class="num" title="cached / prompt tokens">Cache hit</th><th class="num">Errors</th><th>Error codes</th></tr></thead>
          <tbody>${view.groups.map((g) => {
            const filter = groupFilter(view.by, g);
            return html`<tr data-group=${g.label}>
            <td data-label=${groupTitle}><span class="chips"><${GroupLink} group=${g} filter=${filter} r=${view.r} /></span></td>
            <td class="num" data-label="Requests">${count(g.requests)}</td>
            <td class="num" data-label="Tokens">${count(g.tokens)}</td>
            <td class="num" data-label="Spend">${g.spend === null ? '–' : usd(g.spend)}</td>
            <td class="num" data-label="Cache hit">${pct(g.cacheHit)}</td>
            <td class="num" data-label="Errors">${
              g.errors
                ? filter
                  ? html`<a class="badge bad" href=${linkTo({ ...filter, status: 'error' })} title="Failed requests of this group">${count(g.errors)} · ${pct(g.errors / g.requests)}</a>`
                  : html`<span class="badge bad">${count(g.errors)} · ${pct(g.errors / g.requests)}</span>`
                : '0'
            }</td>
            <td data-label="Error codes"><${ErrorCodes} codes=${g.codes} filter=${filter} r=${view.r} /></td>
          </tr>`;
          })}</tbody>
        </table></div>
        <p class="note">A ${shownBy === 'model' ? 'model' : shownBy === 'key' ? 'key' : 'tag'}, an error count or an error code here or in a chart's legend opens its requests in this range.</p>`
        }
      </section>`
    }`;
}
