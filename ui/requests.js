// Requests: the request log (GET /v1/requests), newest first, filtered on the server by
// key, model, provider, route and status; one entry's details beside the list.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api } from './api.js';
import { count, ms, usd, when } from './format.js';
import { html } from './html.js';
import { Problem, useLoad } from './load.js';

const CLASSES = [
  ['', 'Any status'],
  ['ok', 'Succeeded'],
  ['error', 'Failed'],
  ['4xx', '4xx'],
  ['5xx', '5xx'],
];
/** Statuses gw answers with (docs/design.md "Errors"), offered even before one is logged. */
const KNOWN = [400, 401, 403, 404, 408, 413, 415, 429, 499, 500, 502, 503, 504];

/** The status filter's options: the classes, then every known status and every status in `entries`, in order. */
export function statusOptions(entries) {
  const seen = new Set(KNOWN);
  for (const e of entries ?? []) if (e.status >= 400) seen.add(e.status);
  return [...CLASSES, ...[...seen].sort((a, b) => a - b).map((s) => [String(s), String(s)])];
}

/** Newest arrival first: the log is kept in the order requests ended, the list shows when they arrived. */
export const byArrival = (entries) => [...(entries ?? [])].sort((a, b) => (a.time < b.time ? 1 : a.time > b.time ? -1 : 0));
const ROUTES = ['chat', 'embeddings', 'messages'];
const statusClass = (s) => `status s${String(s)[0]}`;

function Select({ name, label, value, options, onChange }) {
  return html`<label>${label}<select name=${name} aria-label=${label} value=${value} onChange=${(e) => onChange(e.currentTarget.value)}>
    ${options.map(([v, l]) => html`<option value=${v}>${l}</option>`)}
  </select></label>`;
}

const FIELDS = [
  ['time', 'Time', (e) => `${new Date(e.time).toLocaleString()} (${e.time})`],
  ['request_id', 'Request id', (e) => html`<code>${e.request_id}</code>`],
  ['status', 'Status', (e) => html`<span class=${statusClass(e.status)}>${e.status}</span>`],
  ['error_code', 'Error', (e) => (e.error_code ? html`<code>${e.error_code}</code>` : '–')],
  ['error_message', 'Message', (e) => e.error_message ?? '–'],
  ['key', 'Key', (e) => e.key ?? html`<span class="muted">none accepted</span>`],
  ['route', 'Route', (e) => e.route],
  ['model', 'Model requested', (e) => e.model ?? '–'],
  ['served_model', 'Model served', (e) => e.served_model ?? '–'],
  ['provider', 'Provider', (e) => e.provider ?? (e.cache_hit ? 'cache' : '–')],
  ['attempts', 'Upstream attempts', (e) => e.attempts],
  ['stream', 'Stream', (e) => (e.stream ? 'yes' : 'no')],
  ['cache_hit', 'Cache hit', (e) => (e.cache_hit ? 'yes' : 'no')],
  ['latency_ms', 'Latency', (e) => ms(e.latency_ms)],
  ['ttfb_ms', 'Time to first byte', (e) => ms(e.ttfb_ms)],
  ['upstream_ms', 'Upstream', (e) => ms(e.upstream_ms)],
  ['overhead_ms', 'gw overhead', (e) => ms(e.overhead_ms)],
  ['prompt_tokens', 'Prompt tokens', (e) => count(e.prompt_tokens)],
  // the parts of the prompt and completion above, not added to them
  ['cached_tokens', '… cache reads', (e) => count(e.cached_tokens)],
  ['cache_write_tokens', '… cache writes', (e) => count(e.cache_write_tokens)],
  ['completion_tokens', 'Completion tokens', (e) => count(e.completion_tokens)],
  ['reasoning_tokens', '… reasoning', (e) => count(e.reasoning_tokens)],
  [
    'usage_estimated',
    'Usage',
    (e) => (e.usage_estimated ? html`<span class="badge">estimated</span> (stream ended early)` : e.prompt_tokens === null ? '–' : 'reported'),
  ],
  ['cost_usd', 'Cost', (e) => usd(e.cost_usd)],
  ['trace_id', 'Trace', (e) => (e.trace_id ? html`<a href=${`#/traces?trace=${e.trace_id}`}><code>${e.trace_id}</code></a>` : '–')],
];

function Detail({ entry, onClose }) {
  return html`<aside class="panel detail" aria-label="Request details">
    <div class="panel-head"><h2>Request</h2><button class="small" onClick=${onClose} aria-label="Close details">Close</button></div>
    <dl>${FIELDS.map(([, label, show]) => html`<dt>${label}</dt><dd>${show(entry)}</dd>`)}</dl>
    ${
      'request_body' in entry
        ? html`<h2 style=${{ marginTop: '14px' }}>Request body</h2><pre>${entry.request_body ?? '–'}</pre>
      <h2 style=${{ marginTop: '14px' }}>Response</h2><pre>${entry.response_body ?? '–'}</pre>`
        : html`<p class="note">Bodies are not logged (request_log: log_bodies = false).</p>`
    }
  </aside>`;
}

export function Requests() {
  const [filters, setFilters] = useState({ key: '', model: '', provider: '', route: '', status: '' });
  const [live, setLive] = useState(true);
  const [limit, setLimit] = useState(100);
  const [selected, setSelected] = useState(null);
  const set = (k) => (v) => setFilters((f) => ({ ...f, [k]: v }));
  const options = useLoad(async () => {
    const [keys, models, providers] = await Promise.all([api.keys(), api.models(), api.providers()]);
    return { keys: keys.map((k) => k.name), models: models.map((m) => m.id), providers: providers.map((p) => p.name) };
  }, []);
  const { data, error, loading } = useLoad(() => api.requests({ ...filters, limit }), [filters, limit], { refreshMs: live ? 3000 : undefined });
  useEffect(() => {
    // on a narrow screen the details sit above the list: bring them into view
    if (selected && innerWidth < 1100) document.querySelector('.detail')?.scrollIntoView({ block: 'start', behavior: 'smooth' });
  }, [selected?.request_id]);
  useEffect(() => {
    const onKey = (e) => e.key === 'Escape' && setSelected(null);
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);

  const o = options.data ?? { keys: [], models: [], providers: [] };
  const entries = useMemo(() => byArrival(data), [data]);
  const statuses = useMemo(() => statusOptions(data), [data]);
  const filtered = Object.values(filters).some(Boolean);
  return html`<div class="page-head">
      <div><h1>Requests</h1><div class="sub">The request log: every gateway request, failed ones included, newest first.</div></div>
      <div class="controls"><label><input type="checkbox" checked=${live} onChange=${(e) => setLive(e.currentTarget.checked)} /> Live</label></div>
    </div>
    <${Problem} error=${error} />
    ${data === null ? html`<div class="alert info">The request log needs its extension: add <code>[extensions.request_log]</code> to the gateway config and restart.</div>` : null}
    <section class="panel">
      <div class="controls filters" style=${{ marginBottom: '12px' }}>
        <${Select} name="status" label="Status" value=${filters.status} options=${statuses} onChange=${set('status')} />
        <${Select} name="key" label="Key" value=${filters.key} options=${[['', 'Any key'], ...o.keys.map((k) => [k, k])]} onChange=${set('key')} />
        <${Select} name="model" label="Model" value=${filters.model} options=${[['', 'Any model'], ...o.models.map((m) => [m, m])]} onChange=${set('model')} />
        <${Select} name="provider" label="Provider" value=${filters.provider} options=${[['', 'Any provider'], ...o.providers.map((p) => [p, p])]} onChange=${set('provider')} />
        <${Select} name="route" label="Route" value=${filters.route} options=${[['', 'Any route'], ...ROUTES.map((r) => [r, r])]} onChange=${set('route')} />
        ${filtered ? html`<button class="small" onClick=${() => setFilters({ key: '', model: '', provider: '', route: '', status: '' })}>Clear filters</button>` : null}
        <span class="muted" aria-live="polite" data-count=${entries.length}>${loading && !data ? 'Loading…' : `${entries.length} request${entries.length === 1 ? '' : 's'}`}</span>
      </div>
      <div class=${`split ${selected ? 'open' : ''}`}>
        <div class="scroll">${
          entries.length === 0
            ? html`<p class="empty">${filtered ? 'No request matches these filters.' : 'No requests logged yet.'}</p>`
            : html`<table class="cards log">
          <thead><tr><th>Time</th><th>Status</th><th>Key</th><th>Model</th><th>Provider</th><th class="num">Latency</th><th class="num">Tokens</th><th class="num">Cost</th><th>Error</th></tr></thead>
          <tbody>${entries.map(
            (e) => html`<tr class=${`clickable ${selected?.request_id === e.request_id ? 'selected' : ''}`} tabindex="0" data-request-id=${e.request_id}
              onClick=${() => setSelected(e)} onKeyDown=${(ev) => ev.key === 'Enter' && setSelected(e)}>
            <td data-label="Time"><time datetime=${e.time}>${when(e.time)}</time></td>
            <td data-label="Status"><span class=${statusClass(e.status)}>${e.status}</span>${e.cache_hit ? html` <span class="badge">cache</span>` : null}${e.stream ? html` <span class="badge">stream</span>` : null}</td>
            <td data-label="Key">${e.key ?? html`<span class="muted">–</span>`}</td>
            <td data-label="Model">${e.model ?? '–'}${e.served_model && e.served_model !== e.model ? html`<div class="sub">→ ${e.served_model}</div>` : null}</td>
            <td data-label="Provider">${e.provider ?? html`<span class="muted">–</span>`}</td>
            <td class="num" data-label="Latency">${ms(e.latency_ms)}</td>
            <td class="num" data-label="Tokens">${e.prompt_tokens === null ? '–' : count(e.prompt_tokens + (e.completion_tokens ?? 0))}</td>
            <td class="num" data-label="Cost">${e.cost_usd === null ? '–' : usd(e.cost_usd)}</td>
            <td data-label="Error">${e.error_code ? html`<code>${e.error_code}</code>` : null}</td>
          </tr>`,
          )}</tbody>
        </table>`
        }
        ${entries.length >= limit ? html`<div style=${{ textAlign: 'center', marginTop: '10px' }}><button class="small" onClick=${() => setLimit(Math.min(1000, limit + 200))} disabled=${limit >= 1000}>Show more</button></div>` : null}
        </div>
        ${selected ? html`<${Detail} entry=${selected} onClose=${() => setSelected(null)} />` : null}
      </div>
    </section>`;
}
