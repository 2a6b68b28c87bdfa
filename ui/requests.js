// Requests: the request log (GET /v1/requests), newest first, filtered on the server by time
// range, status, error code, key, model, tag, provider and route, and searched by request id.
// The filters live in the URL hash (hash.js): the Overview's links open this page filtered,
// a view can be shared, and back returns to the previous one. One entry's details open in a
// drawer over the list, so the table keeps its columns.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api } from './api.js';
import { count, ms, usd, when } from './format.js';
import { hashOf, pushView, useHashParams } from './hash.js';
import { html } from './html.js';
import { Problem, useLoad } from './load.js';
import { localZone } from './range.js';

const CLASSES = [
  ['', 'Any status'],
  ['ok', 'Succeeded'],
  ['error', 'Failed'],
  ['4xx', '4xx'],
  ['5xx', '5xx'],
];
/** Statuses gw answers with (docs/design.md "Errors"), offered even before one is logged. */
const KNOWN = [400, 401, 403, 404, 408, 413, 415, 429, 499, 500, 502, 503, 504];

const MINUTE = 60_000;
/** Time ranges ending now: [hash value, label, length in ms]; `custom` is from/to dates. */
const PERIODS = [
  ['', 'Any time'],
  ['15m', 'Last 15 minutes', 15 * MINUTE],
  ['1h', 'Last hour', 60 * MINUTE],
  ['24h', 'Last 24 hours', 24 * 60 * MINUTE],
  ['7d', 'Last 7 days', 7 * 24 * 60 * MINUTE],
  ['custom', 'Custom range'],
];

/** The filters this page reads from and writes to the hash, as GET /v1/requests names them (`range`: a PERIODS value). */
const FILTERS = ['range', 'since', 'until', 'status', 'error_code', 'key', 'model', 'tag', 'provider', 'route', 'request_id'];

/**
 * The hash of the request log filtered by `filters` ({key, model, tag, status, error_code, …}),
 * over [from, end) (epoch ms) when given: what the Overview's charts and tables link to.
 */
export function requestsHref(filters, from, end) {
  const range = from === undefined ? {} : { since: new Date(from).toISOString(), until: new Date(end).toISOString() };
  return hashOf('requests', { ...filters, ...range });
}

/** The status filter's options: the classes, then every known status and every status in `entries`, in order. */
export function statusOptions(entries) {
  const seen = new Set(KNOWN);
  for (const e of entries ?? []) if (e.status >= 400) seen.add(e.status);
  return [...CLASSES, ...[...seen].sort((a, b) => a - b).map((s) => [String(s), String(s)])];
}

/** Newest arrival first: the log is kept in the order requests ended, the list shows when they arrived. */
export const byArrival = (entries) => [...(entries ?? [])].sort((a, b) => (a.time < b.time ? 1 : a.time > b.time ? -1 : 0));
const ROUTES = ['chat', 'embeddings', 'messages', 'responses', 'gemini', 'count_tokens'];
const statusClass = (s) => `status s${String(s)[0]}`;

/** The API query of the hash's filters: a period becomes `since` = now minus its length. */
function queryOf(filters, now = Date.now()) {
  const q = {};
  for (const f of FILTERS) if (f !== 'range' && filters[f]) q[f] = filters[f];
  const period = PERIODS.find(([v]) => v === filters.range);
  if (period?.[2]) {
    q.since = new Date(now - period[2]).toISOString();
    delete q.until;
  }
  return q;
}

/** "2026-01-31T10:00" in the browser's zone (a datetime-local input's value) of an ISO time; '' when not one. */
function localInput(iso) {
  const d = new Date(iso ?? '');
  if (Number.isNaN(d.getTime())) return '';
  const p = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}

/** A datetime-local value (the browser's zone) as ISO; '' stays ''. */
const fromLocalInput = (v) => (v ? new Date(v).toISOString() : '');

/** A select whose current value is always among its options (a value from a link may not be in the list). */
function Select({ name, label, value, options, onChange }) {
  const all = value && !options.some(([v]) => v === value) ? [...options, [value, value]] : options;
  return html`<label>${label}<select name=${name} aria-label=${label} value=${value} onChange=${(e) => onChange(e.currentTarget.value)}>
    ${all.map(([v, l]) => html`<option value=${v}>${l}</option>`)}
  </select></label>`;
}

/** The tag filter's options from the keys' tags: `name:value` for each, `name:` (keys without it) for each name. */
function tagOptions(keys) {
  const values = new Map();
  for (const k of keys) for (const [n, v] of Object.entries(k.tags ?? {})) (values.get(n) ?? values.set(n, new Set()).get(n)).add(v);
  const out = [['', 'Any tag']];
  for (const n of [...values.keys()].sort()) {
    for (const v of [...values.get(n)].sort()) out.push([`${n}:${v}`, `${n}: ${v}`]);
    out.push([`${n}:`, `${n}: (none)`]);
  }
  return out;
}

/** The request-id search: applied as typing pauses, or at once on Enter. */
function Search({ value, onSearch }) {
  const [text, setText] = useState(value ?? '');
  const timer = useRef(undefined);
  useEffect(() => setText(value ?? ''), [value]);
  useEffect(() => () => clearTimeout(timer.current), []);
  const apply = (v) => {
    clearTimeout(timer.current);
    onSearch(v.trim());
  };
  return html`<form class="search" role="search" onSubmit=${(e) => {
    e.preventDefault();
    apply(text);
  }}><input type="search" name="request_id" aria-label="Search request ids" placeholder="Request id…" spellcheck="false" value=${text}
    onInput=${(e) => {
      const v = e.currentTarget.value;
      setText(v);
      clearTimeout(timer.current);
      timer.current = setTimeout(() => apply(v), 500);
    }} /></form>`;
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
  // what the guardrails found: check, phase, action, entity type and count, never the text
  [
    'guardrails',
    'Guardrails',
    (e) =>
      e.guardrails?.length
        ? html`<span class="chips">${e.guardrails.map((g) => html`<span class="chip" title=${`${g.phase}: ${g.action}`}>${g.check} ${g.action} ${g.entity} ×${g.count}</span>`)}</span>`
        : '–',
  ],
];

/** One request's details: a drawer over the list (the list keeps its width), focused when it opens. */
function Detail({ entry, onClose }) {
  const box = useRef(null);
  useEffect(() => box.current?.focus({ preventScroll: true }), [entry.request_id]);
  return html`<aside class="panel detail drawer" aria-label="Request details" tabindex="-1" ref=${box}>
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

/** The time range: a period ending now, or custom from/to times in the browser's zone. */
function TimeRange({ filters, onChange }) {
  const period = filters.range || (filters.since || filters.until ? 'custom' : '');
  const choose = (v) => {
    if (v !== 'custom') return onChange({ range: v, since: '', until: '' });
    // a custom range starts as the last hour, to edit
    const now = Date.now();
    return onChange({ range: '', since: new Date(now - 60 * MINUTE).toISOString(), until: filters.until || '' });
  };
  return html`<${Select} name="range" label="Time" value=${period} options=${PERIODS.map(([v, l]) => [v, l])} onChange=${choose} />
    ${
      period === 'custom'
        ? html`<span class="dates" title=${`times in ${localZone()}; the range keeps requests that ended in it`}>
      <label>From <input type="datetime-local" name="since" value=${localInput(filters.since)} onChange=${(e) => onChange({ range: '', since: fromLocalInput(e.currentTarget.value) })} /></label>
      <label>To <input type="datetime-local" name="until" value=${localInput(filters.until)} onChange=${(e) => onChange({ range: '', until: fromLocalInput(e.currentTarget.value) })} /></label>
      <span class="muted zone-note">${localZone()}</span>
    </span>`
        : null
    }`;
}

export function Requests() {
  const params = useHashParams();
  const filters = useMemo(() => Object.fromEntries(FILTERS.map((f) => [f, params[f] ?? ''])), [params]);
  const [live, setLive] = useState(true);
  const [limit, setLimit] = useState(100);
  const [selected, setSelected] = useState(null);
  const change = (patch) => pushView('requests', { ...filters, ...patch });
  const set = (k) => (v) => change({ [k]: v });
  const options = useLoad(async () => {
    const [keys, models, providers] = await Promise.all([api.keys(), api.models(), api.providers()]);
    return { keys: keys.map((k) => k.name), tags: tagOptions(keys), models: models.map((m) => m.id), providers: providers.map((p) => p.name) };
  }, []);
  const filterKey = FILTERS.map((f) => filters[f]).join('\n');
  const { data, error, loading } = useLoad(() => api.requests({ ...queryOf(filters), limit }), [filterKey, limit], { refreshMs: live ? 3000 : undefined });
  useEffect(() => {
    const onKey = (e) => e.key === 'Escape' && setSelected(null);
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);
  const close = () => {
    const id = selected?.request_id;
    setSelected(null);
    // back to the row the details were opened from
    if (id) document.querySelector(`tr[data-request-id="${CSS.escape(id)}"]`)?.focus({ preventScroll: true });
  };

  const o = options.data ?? { keys: [], tags: [['', 'Any tag']], models: [], providers: [] };
  const entries = useMemo(() => byArrival(data), [data]);
  const statuses = useMemo(() => statusOptions(data), [data]);
  const codes = useMemo(() => [['', 'Any error'], ...[...new Set(entries.map((e) => e.error_code).filter(Boolean))].sort().map((c) => [c, c])], [entries]);
  const filtered = FILTERS.some((f) => filters[f]);
  return html`<div class="page-head">
      <div><h1>Requests</h1><div class="sub">The request log: every gateway request, failed ones included, newest first.</div></div>
      <div class="controls"><label><input type="checkbox" checked=${live} onChange=${(e) => setLive(e.currentTarget.checked)} /> Live</label></div>
    </div>
    <${Problem} error=${error} />
    ${data === null ? html`<div class="alert info">The request log needs its extension: add <code>[extensions.request_log]</code> to the gateway config and restart.</div>` : null}
    <section class="panel">
      <div class="controls filters" style=${{ marginBottom: '12px' }}>
        <${Search} value=${filters.request_id} onSearch=${set('request_id')} />
        <${TimeRange} filters=${filters} onChange=${change} />
        <${Select} name="status" label="Status" value=${filters.status} options=${statuses} onChange=${set('status')} />
        <${Select} name="error_code" label="Error" value=${filters.error_code} options=${codes} onChange=${set('error_code')} />
        <${Select} name="key" label="Key" value=${filters.key} options=${[['', 'Any key'], ...o.keys.map((k) => [k, k])]} onChange=${set('key')} />
        <${Select} name="model" label="Model" value=${filters.model} options=${[['', 'Any model'], ...o.models.map((m) => [m, m])]} onChange=${set('model')} />
        <${Select} name="tag" label="Tag" value=${filters.tag} options=${o.tags} onChange=${set('tag')} />
        <${Select} name="provider" label="Provider" value=${filters.provider} options=${[['', 'Any provider'], ...o.providers.map((p) => [p, p])]} onChange=${set('provider')} />
        <${Select} name="route" label="Route" value=${filters.route} options=${[['', 'Any route'], ...ROUTES.map((r) => [r, r])]} onChange=${set('route')} />
        ${filtered ? html`<button class="small" onClick=${() => pushView('requests', {})}>Clear filters</button>` : null}
        <span class="muted" aria-live="polite" data-count=${entries.length}>${loading && !data ? 'Loading…' : `${entries.length} request${entries.length === 1 ? '' : 's'}`}</span>
      </div>
      <div class="scroll">${
        entries.length === 0
          ? html`<p class="empty">${filtered ? 'No request matches these filters.' : 'No requests logged yet.'}</p>`
          : html`<table class="cards log">
        <thead><tr><th>Time</th><th>Status</th><th>Key</th><th>Model</th><th>Provider</th><th class="num">Latency</th><th class="num">Tokens</th><th class="num">Cost</th><th>Error</th></tr></thead>
        <tbody>${entries.map(
          (e) => html`<tr class=${`clickable ${selected?.request_id === e.request_id ? 'selected' : ''}`} tabindex="0" data-request-id=${e.request_id}
            onClick=${() => setSelected(e)} onKeyDown=${(ev) => ev.key === 'Enter' && setSelected(e)}>
          <td data-label="Time" class="nowrap"><time datetime=${e.time}>${when(e.time)}</time></td>
          <td data-label="Status" class="nowrap"><span class=${statusClass(e.status)}>${e.status}</span>${e.cache_hit ? html` <span class="badge">cache</span>` : null}${e.stream ? html` <span class="badge">stream</span>` : null}</td>
          <td data-label="Key">${e.key ?? html`<span class="muted">–</span>`}</td>
          <td data-label="Model">${e.model ?? '–'}${e.served_model && e.served_model !== e.model ? html`<div class="sub">→ ${e.served_model}</div>` : null}</td>
          <td data-label="Provider">${e.provider ?? html`<span class="muted">–</span>`}</td>
          <td class="num nowrap" data-label="Latency">${ms(e.latency_ms)}</td>
          <td class="num nowrap" data-label="Tokens">${e.prompt_tokens === null ? '–' : count(e.prompt_tokens + (e.completion_tokens ?? 0))}</td>
          <td class="num nowrap" data-label="Cost">${e.cost_usd === null ? '–' : usd(e.cost_usd)}</td>
          <td data-label="Error">${e.error_code ? html`<code>${e.error_code}</code>` : null}</td>
        </tr>`,
        )}</tbody>
      </table>`
      }
      ${entries.length >= limit ? html`<div style=${{ textAlign: 'center', marginTop: '10px' }}><button class="small" onClick=${() => setLimit(Math.min(1000, limit + 200))} disabled=${limit >= 1000}>Show more</button></div>` : null}
      </div>
    </section>
    ${selected ? html`<${Detail} entry=${selected} onClose=${close} />` : null}`;
}
