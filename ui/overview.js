// Overview: requests, tokens, spend and error rate over the last 24 hours or 7 days, in
// hour buckets, stacked by model or by key (GET /v1/usage and /v1/budget series).
import { useMemo, useState } from 'preact/hooks';
import { api } from './api.js';
import { Chart, color } from './chart.js';
import { axisUsd, count, pct, usd } from './format.js';
import { cacheHitRates } from './cache-rate.js';
import { html } from './html.js';
import { Problem, useLoad } from './load.js';

const HOUR = 3_600_000;
/** Groups drawn on their own; the rest are summed as "other". */
const TOP = 8;

const label = (by, v) => (v === null || v === undefined || v === '' ? (by === 'model' ? '(unknown model)' : '(none)') : v);

/**
 * Dense hour grid [from, end) and, per group, the values of `field` in each hour; groups by
 * their total over the range, largest first, beyond TOP summed into "other".
 */
export function toSeries(entries, by, field, from, end, order) {
  const hours = Math.round((end - from) / HOUR);
  const x = Array.from({ length: hours }, (_, i) => (from + i * HOUR) / 1000);
  const byGroup = new Map();
  for (const e of entries ?? []) {
    const i = Math.round((Date.parse(e.bucket_start) - from) / HOUR);
    if (i < 0 || i >= hours) continue;
    const g = label(by, e[by]);
    let vals = byGroup.get(g);
    if (!vals) byGroup.set(g, (vals = new Array(hours).fill(0)));
    vals[i] += e[field] ?? 0;
  }
  const total = (v) => v.reduce((a, b) => a + b, 0);
  // one order (and so one colour per group) for every chart: `order` when given
  const rank = (g) => (order?.has(g) ? order.get(g) : Infinity);
  const sorted = [...byGroup].sort((a, b) => rank(a[0]) - rank(b[0]) || total(b[1]) - total(a[1]) || (a[0] < b[0] ? -1 : 1));
  const series = sorted.slice(0, TOP).map(([g, values], i) => ({ label: g, values, color: color(order?.get(g) ?? i) }));
  if (sorted.length > TOP) {
    const rest = new Array(hours).fill(0);
    for (const [, v] of sorted.slice(TOP)) for (let i = 0; i < v.length; i++) rest[i] += v[i];
    series.push({ label: `other (${sorted.length - TOP})`, values: rest, color: color(TOP) });
  }
  return { x, series };
}

function Tile({ label: l, value, hint }) {
  return html`<div class="tile"><div class="label">${l}</div><div class="value">${value}</div>${hint ? html`<div class="hint">${hint}</div>` : null}</div>`;
}

export function Overview() {
  const [range, setRange] = useState('24h');
  const [by, setBy] = useState('model');
  const { data, error, loading } = useLoad(
    async () => {
      const end = Math.floor(Date.now() / HOUR) * HOUR + HOUR;
      const from = end - (range === '24h' ? 24 : 168) * HOUR;
      const q = { bucket: 'hour', group_by: by, from: new Date(from).toISOString(), to: new Date(end).toISOString() };
      const [usage, spend] = await Promise.all([api.usageSeries(q), api.budgetSeries(q)]);
      return { from, end, usage, spend };
    },
    [range, by],
    { refreshMs: 30_000 },
  );

  const view = useMemo(() => {
    if (!data) return null;
    const { from, end, usage, spend } = data;
    const requests = toSeries(usage, by, 'requests', from, end);
    const order = new Map(requests.series.map((s, i) => [s.label, i]));
    // groups with spend but no requests in range (none, normally) come after
    for (const e of spend ?? []) if (!order.has(label(by, e[by]))) order.set(label(by, e[by]), order.size);
    const tokens = toSeries(usage, by, 'total_tokens', from, end, order);
    const spent = spend ? toSeries(spend, by, 'spent_usd', from, end, order) : null;
    const errors = toSeries(usage, by, 'errors', from, end, order);
    const sum = (s) => s.series.reduce((a, g) => a + g.values.reduce((x, y) => x + y, 0), 0);
    const reqAt = requests.x.map((_, i) => requests.series.reduce((a, g) => a + g.values[i], 0));
    const errAt = errors.x.map((_, i) => errors.series.reduce((a, g) => a + g.values[i], 0));
    const rate = { x: requests.x, series: [{ label: 'error rate', values: reqAt.map((n, i) => (n ? errAt[i] / n : null)) }] };
    const totals = { requests: sum(requests), tokens: sum(tokens), spend: spent ? sum(spent) : null, errors: sum(errors) };
    const prompt = (usage ?? []).reduce((a, e) => a + e.prompt_tokens, 0);
    const hits = cacheHitRates(usage, (e) => label(by, e[by]));
    const groups = requests.series.map((g, i) => ({
      label: g.label,
      color: g.color ?? color(i),
      requests: g.values.reduce((a, b) => a + b, 0),
      tokens: tokens.series.find((s) => s.label === g.label)?.values.reduce((a, b) => a + b, 0) ?? 0,
      errors: errors.series.find((s) => s.label === g.label)?.values.reduce((a, b) => a + b, 0) ?? 0,
      spend: spent ? (spent.series.find((s) => s.label === g.label)?.values.reduce((a, b) => a + b, 0) ?? 0) : null,
      // "other (n)" sums several groups: no one rate
      cacheHit: hits.groups.has(g.label) ? hits.groups.get(g.label) : undefined,
    }));
    return { requests, tokens, spent, rate, totals, prompt, groups, cacheHit: hits.all };
  }, [data, by]);

  const noUsage = data && data.usage === null;
  return html`<div class="page-head">
      <div><h1>Overview</h1><div class="sub">Traffic through this gateway, per hour${by === 'model' ? ', by model' : ', by key'}.</div></div>
      <div class="controls">
        <div class="seg" role="group" aria-label="Range">
          ${[
            ['24h', 'Last 24 hours'],
            ['7d', 'Last 7 days'],
          ].map(([v, l]) => html`<button aria-pressed=${range === v} onClick=${() => setRange(v)}>${l}</button>`)}
        </div>
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
        <${Tile} label="Spend" value=${view.totals.spend === null ? '–' : usd(view.totals.spend)} hint=${view.totals.spend === null ? 'budget extension off' : 'priced from [pricing]'} />
        <${Tile} label="Error rate" value=${view.totals.requests ? pct(view.totals.errors / view.totals.requests) : '–'} hint="failed / all requests" />
        <${Tile} label="Cache hit rate" value=${pct(view.cacheHit)} hint="cached / prompt tokens" />
      </div>
      <div class="grid">
        <${Chart} id="requests" title="Requests" x=${view.requests.x} series=${view.requests.series} stacked integer format=${count} />
        <${Chart} id="tokens" title="Tokens" x=${view.tokens.x} series=${view.tokens.series} stacked integer format=${count} />
        ${
          view.spent
            ? html`<${Chart} id="spend" title="Spend (USD)" x=${view.spent.x} series=${view.spent.series} stacked format=${usd} axis=${axisUsd} />`
            : html`<${Chart} id="spend" title="Spend (USD)" x=${[]} series=${[]} note="Spend over time needs the budget extension ([extensions.budget])." />`
        }
        <${Chart} id="errors" title="Error rate" x=${view.rate.x} series=${view.rate.series} kind="line" format=${pct} axis=${(v) => `${+(v * 100).toPrecision(2)}%`} emptyMax=${0.05} />
      </div>
      <section class="panel">
        <div class="panel-head"><h2>${by === 'model' ? 'Models' : 'Keys'} in this range</h2><span class="muted">${range === '24h' ? 'last 24 hours' : 'last 7 days'}</span></div>
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
