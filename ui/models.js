// Models & providers: each provider's health on this instance (last 5 and 60 minutes:
// attempts, failures by class, latency and TTFB p50/p95, circuit state), latency and
// traffic per minute over the last hour, runtime providers (create with model discovery,
// delete), and the routable models with the price that applies at each provider and where it came from.
// A model or provider in a chart's legend opens its requests of the last hour.
import { useMemo, useState } from 'preact/hooks';
import { api } from './api.js';
import { Delete, useCreate } from './actions.js';
import { Chart, color } from './chart.js';
import { axisMs, count, ms, pct } from './format.js';
import { html } from './html.js';
import { Problem, useLoad } from './load.js';
import { requestsHref } from './requests.js';

const MINUTE = 60_000;
const KINDS = ['openai', 'anthropic', 'gemini', 'azure', 'dashscope', 'zhipu', 'mock'];
const CIRCUIT = { closed: ['ok', 'closed'], half_open: ['warn', 'half-open'], open: ['bad', 'open'] };
const CLASSES = [
  ['timeout', 'timeouts'],
  ['rate_limited', '429'],
  ['server_error', '5xx'],
  ['connect', 'connect'],
  ['other', 'other'],
  ['rejected', '4xx'],
];

/** Per-minute values of `field` for each provider over the last hour (null where it had no samples). */
function minuteSeries(providers, field) {
  const end = Math.floor(Date.now() / MINUTE) * MINUTE;
  const x = Array.from({ length: 60 }, (_, i) => (end - (59 - i) * MINUTE) / 1000);
  const series = providers
    .filter((p) => p.health?.minutes?.length)
    .map((p) => {
      const values = new Array(60).fill(field === 'requests' ? 0 : null);
      for (const m of p.health.minutes) {
        const i = 59 - Math.round((end - Date.parse(m.start)) / MINUTE);
        if (i >= 0 && i < 60) values[i] = m[field];
      }
      return { label: p.name, values };
    });
  return { x, series };
}

/** Where a price came from, as the config names it. */
function priceSource(p) {
  if (p.source === 'bundled') return `bundled table ${p.table} (${p.entry})`;
  if (p.source === 'config') return `[pricing."${p.entry}"]`;
  return `[providers.${p.provider}.pricing."${p.entry}"]`;
}

/** A model's price at one provider: input / cached / cache write / output, its tiers, and its source; "no price" in warning colours. */
function Price({ p, many }) {
  const at = many ? html`<b class="name">${p.provider}</b> ` : null;
  if (p.source === null)
    return html`<div>${at}<span class="badge warn" title="cost null; the budget refuses it unless unpriced = &quot;allow&quot;">no price</span></div>`;
  // no-break spaces: a rate never wraps away from its label
  const rates = `in\u00a0${p.input_per_mtok} · cached\u00a0${p.cache_read_per_mtok} · write\u00a0${p.cache_write_per_mtok} · out\u00a0${p.output_per_mtok}`;
  const tiers = (p.tiers ?? []).map((t) => `above ${count(t.above_tokens)}: in ${t.input_per_mtok} · out ${t.output_per_mtok}`).join('; ');
  return html`<div>${at}${rates}${p.reasoning_per_mtok !== p.output_per_mtok ? ` · reasoning ${p.reasoning_per_mtok}` : ''}<div class="sub">${tiers ? `${tiers} · ` : ''}${priceSource(p)}</div></div>`;
}

/** Per-minute values of `field` per `by` (model or provider) over the last hour, from the stored latency series. */
function storedSeries(entries, by, field) {
  const end = Math.floor(Date.now() / MINUTE) * MINUTE;
  const x = Array.from({ length: 60 }, (_, i) => (end - (59 - i) * MINUTE) / 1000);
  const groups = new Map();
  for (const e of entries ?? []) {
    const i = 59 - Math.round((end - Date.parse(e.bucket_start)) / MINUTE);
    if (i < 0 || i >= 60 || e[field] === null) continue;
    let values = groups.get(e[by]);
    if (!values) groups.set(e[by], (values = new Array(60).fill(null)));
    values[i] = e[field];
  }
  const series = [...groups].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([label, values], i) => ({ label, values, color: color(i) }));
  return { x, series };
}

function Window({ w }) {
  if (!w || (w.requests === 0 && w.served === 0)) return html`<span class="muted">no traffic</span>`;
  const failed = CLASSES.filter(([k]) => w.errors[k])
    .map(([k, l]) => `${w.errors[k]} ${l}`)
    .join(', ');
  const cls = w.error_rate >= 0.2 ? 'bad' : w.error_rate > 0 ? 'warn' : 'ok';
  return html`<div>
    <div>${count(w.requests)} req · <span class=${`badge ${cls}`} title=${failed || 'no failures'}>${pct(w.error_rate)} errors</span></div>
    <div class="sub">p50 ${ms(w.latency_ms?.p50)} · p95 ${ms(w.latency_ms?.p95)} · TTFB p95 ${ms(w.ttfb_ms?.p95)}</div>
    ${failed ? html`<div class="sub">${failed}</div>` : null}
  </div>`;
}

function CreateProvider({ onCreated }) {
  const { error, busy, done, submit: create } = useCreate(api.createProvider, onCreated);
  const submit = (e) => {
    e.preventDefault();
    const form = e.currentTarget;
    const f = new FormData(form);
    const body = { name: f.get('name').trim(), kind: f.get('kind').trim() || undefined, api_key: f.get('api_key') };
    const base = f.get('base_url').trim();
    if (base) body.base_url = base;
    const models = f
      .get('models')
      .split(',')
      .map((m) => m.trim())
      .filter(Boolean);
    if (models.length) body.models = models;
    return create(body, form);
  };
  return html`<section class="panel">
    <div class="panel-head"><h2>Add a provider</h2><span class="muted">Stored by the gateway, live at once. Leave models empty to ask the upstream for its list.</span></div>
    <${Problem} error=${error} />
    ${done ? html`<div class="alert ok" role="status">Provider <b>${done.name}</b> (${done.kind}) serves ${done.models.length} model${done.models.length === 1 ? '' : 's'}: ${done.models.join(', ')}</div>` : null}
    <form class="stack" method="post" onSubmit=${submit} autocomplete="off">
      <label class="field"><span>Name</span><input name="name" required pattern="[A-Za-z0-9_.\\-]{1,64}" placeholder="e.g. local-vllm" /></label>
      <label class="field"><span>Kind</span><input name="kind" list="gw-kinds" placeholder="openai, anthropic, …" /></label>
      <label class="field"><span>API key</span><input name="api_key" type="password" required placeholder="the upstream's key" /></label>
      <label class="field"><span>Base URL</span><input name="base_url" type="url" placeholder="optional for built-in kinds" /></label>
      <label class="field"><span>Models</span><input name="models" placeholder="a,b — empty: discover" /></label>
      <button class="primary" type="submit" disabled=${busy}>${busy ? 'Adding…' : 'Add provider'}</button>
      <datalist id="gw-kinds">${KINDS.map((k) => html`<option value=${k} />`)}</datalist>
    </form>
  </section>`;
}

export function Models() {
  const [actionError, setActionError] = useState(null);
  const { data, error, loading, reload } = useLoad(
    async () => {
      const since = new Date(Date.now() - 60 * MINUTE).toISOString();
      const [providers, models, byModel, byProvider] = await Promise.all([
        api.providers(),
        api.models(),
        // kept in the store (every instance, across restarts); null without the usage extension
        api.latencySeries({ bucket: 'minute', group_by: 'model', from: since }).catch(() => null),
        api.latencySeries({ bucket: 'minute', group_by: 'provider', from: since }).catch(() => null),
      ]);
      return { providers, models, byModel, byProvider };
    },
    [],
    { refreshMs: 10_000 },
  );
  const charts = useMemo(
    () =>
      data && {
        p95: minuteSeries(data.providers, 'latency_p95_ms'),
        ttfb: minuteSeries(data.providers, 'ttfb_p95_ms'),
        requests: minuteSeries(data.providers, 'requests'),
        modelP95: storedSeries(data.byModel, 'model', 'latency_p95_ms'),
        modelTtfb: storedSeries(data.byModel, 'model', 'ttfb_p95_ms'),
        providerP95: storedSeries(data.byProvider, 'provider', 'latency_p95_ms'),
        overhead: storedSeries(data.byModel, 'model', 'overhead_p95_ms'),
      },
    [data],
  );

  // a legend entry opens the request log: that model's or provider's requests of the last hour
  const modelRequests = (s) => requestsHref({ model: s.label, range: '1h' });
  const providerRequests = (s) => requestsHref({ provider: s.label, range: '1h' });
  return html`<div class="page-head"><div><h1>Models & providers</h1><div class="sub">Health as this gw instance sees it: the last 5 and 60 minutes.</div></div></div>
    <${Problem} error=${error || actionError} />
    <section class="panel">
      <div class="panel-head"><h2>Providers</h2><span class="muted">attempts include retries; latency is arrival to last byte of answered requests</span></div>
      ${
        loading && !data
          ? html`<p class="loading">Loading…</p>`
          : html`<div class="scroll"><table class="cards providers">
        <thead><tr><th>Provider</th><th>Circuit</th><th class="num">In flight</th><th>Last 5 min</th><th>Last 60 min</th><th>Models</th><th></th></tr></thead>
        <tbody>${(data?.providers ?? []).map(
          (p) => html`<tr data-provider=${p.name}>
          <td data-label="Provider"><div><b class="name" title=${p.name}>${p.name}</b><div class="sub">${p.kind ?? '?'} · ${p.source}${p.base_url ? html` · <span class="mono url">${p.base_url}</span>` : null}</div></div>${
            p.unreadable
              ? html`<div class="problem"><span class="badge bad">unreadable</span> ${p.reason}; it serves nothing: delete it and create it again</div>`
              : null
          }</td>
          <td data-label="Circuit"><span class=${`badge ${CIRCUIT[p.circuit]?.[0] ?? ''}`}>${CIRCUIT[p.circuit]?.[1] ?? p.circuit}</span></td>
          <td class="num" data-label="In flight">${p.inflight}</td>
          <td data-label="Last 5 min"><${Window} w=${p.health?.last_5m} /></td>
          <td data-label="Last 60 min"><${Window} w=${p.health?.last_60m} /></td>
          <td data-label="Models"><span class="chips">${p.models.slice(0, 8).map((m) => html`<span class="chip">${m}</span>`)}${p.models.length > 8 ? html`<span class="chip">+${p.models.length - 8}</span>` : null}${p.models.length === 0 ? html`<span class="muted">none (discovery failed?)</span>` : null}</span></td>
          <td data-label="">${
            p.source === 'runtime'
              ? html`<${Delete} remove=${api.deleteProvider} name=${p.name} onError=${setActionError} onDone=${() => {
                  setActionError(null);
                  reload();
                }} />`
              : html`<span class="muted" title="Defined in the config file">config file</span>`
          }</td>
        </tr>`,
        )}</tbody>
      </table></div>`
      }
    </section>
    ${
      charts
        ? html`<div class="grid" style=${{ marginTop: '16px' }}>
      <${Chart} id="model-latency" title="Latency p95 by model, per minute" x=${charts.modelP95.x} series=${charts.modelP95.series} kind="line" format=${ms} axis=${axisMs} note=${charts.modelP95.series.length ? undefined : data.byModel === null ? 'Latency by model needs the usage extension ([extensions.usage]).' : 'No answered requests in the last hour.'} hrefOf=${modelRequests} />
      <${Chart} id="model-ttfb" title="Time to first token p95 by model (streams)" x=${charts.modelTtfb.x} series=${charts.modelTtfb.series} kind="line" format=${ms} axis=${axisMs} note=${charts.modelTtfb.series.length ? undefined : 'No answered streams in the last hour.'} hrefOf=${modelRequests} />
      <${Chart} id="provider-latency" title="Latency p95 by provider, per minute" x=${charts.providerP95.x} series=${charts.providerP95.series} kind="line" format=${ms} axis=${axisMs} note=${charts.providerP95.series.length ? undefined : 'No answered requests in the last hour.'} hrefOf=${providerRequests} />
      <${Chart} id="overhead" title="gw overhead p95 by model" x=${charts.overhead.x} series=${charts.overhead.series} kind="line" format=${ms} axis=${axisMs} note=${charts.overhead.series.length ? undefined : 'No answered requests in the last hour.'} hrefOf=${modelRequests} />
      <${Chart} id="latency" title="Latency p95 per minute (this instance)" x=${charts.p95.x} series=${charts.p95.series} kind="line" format=${ms} axis=${axisMs} note=${charts.p95.series.length ? undefined : 'No answered requests in the last hour.'} hrefOf=${providerRequests} />
      <${Chart} id="ttfb" title="Time to first byte p95 per minute" x=${charts.ttfb.x} series=${charts.ttfb.series} kind="line" format=${ms} axis=${axisMs} note=${charts.ttfb.series.length ? undefined : 'No answered requests in the last hour.'} hrefOf=${providerRequests} />
      <${Chart} id="attempts" title="Upstream attempts per minute" x=${charts.requests.x} series=${charts.requests.series} stacked integer format=${count} note=${charts.requests.series.length ? undefined : 'No upstream calls in the last hour.'} hrefOf=${providerRequests} />
    </div>`
        : null
    }
    <${CreateProvider} onCreated=${reload} />
    <section class="panel">
      <div class="panel-head"><h2>Models</h2><span class="muted">what clients can ask for; aliases resolve first</span></div>
      ${
        data
          ? html`<table class="cards">
        <thead><tr><th>Model</th><th>Served by</th><th>Alias for</th><th>Price (USD / M tokens)</th></tr></thead>
        <tbody>${data.models.map((m) => html`<tr><td data-label="Model"><code>${m.id}</code></td><td data-label="Served by">${m.owned_by ? html`<span class="chips">${m.owned_by.split(',').map((name) => html`<span class="name">${name}</span>`)}</span>` : html`<span class="muted">no provider</span>`}</td><td data-label="Alias for">${m.alias_for ? html`<code>${m.alias_for}</code>` : '–'}</td><td data-label="Price">${(m.prices ?? []).map((p) => html`<${Price} p=${p} many=${m.prices.length > 1} />`)}</td></tr>`)}</tbody>
      </table>`
          : null
      }
    </section>`;
}
