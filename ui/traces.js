// Traces: the spans the otel extension exported last (GET /v1/otel/spans), one trace per
// request, drawn as a waterfall: the SERVER span of the gateway request, a CLIENT span per
// upstream attempt, their timing on one axis, and the selected span's attributes and events.
// The list names each request's model, key and status (an error badge for a refused or
// failed one). The trace id in the URL (#/traces?trace=<id>) is what the request log links to.
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';
import { ms, when } from './format.js';
import { html } from './html.js';
import { Problem, useLoad } from './load.js';

const wanted = () => new URLSearchParams(location.hash.split('?')[1] ?? '').get('trace') ?? '';

/** Spans as rows of a tree: each after its parent, with its depth. */
function rows(spans) {
  const children = new Map();
  const ids = new Set(spans.map((s) => s.span_id));
  for (const s of spans) {
    const p = s.parent_span_id && ids.has(s.parent_span_id) ? s.parent_span_id : '';
    if (!children.has(p)) children.set(p, []);
    children.get(p).push(s);
  }
  const out = [];
  const walk = (p, depth) => {
    for (const s of children.get(p) ?? []) {
      out.push({ s, depth });
      walk(s.span_id, depth + 1);
    }
  };
  walk('', 0);
  return out;
}

function Waterfall({ trace, selected, onSelect }) {
  const start = Math.min(...trace.spans.map((s) => s.start_ms));
  const end = Math.max(...trace.spans.map((s) => s.start_ms + s.duration_ms));
  const total = Math.max(end - start, 0.001);
  const pct = (v) => `${((v / total) * 100).toFixed(3)}%`;
  const ticks = [0, 0.25, 0.5, 0.75, 1];
  return html`<div class="waterfall" role="table" aria-label="Trace waterfall">
    <div class="wf-row wf-axis" role="row"><div class="wf-name">Span</div><div class="wf-dur">Duration</div><div class="wf-track">${ticks.map((f) => html`<span class="wf-tick" style=${{ left: pct(f * total) }}>${ms(f * total)}</span>`)}</div></div>
    ${rows(trace.spans).map(({ s, depth }) => {
      const err = s.status === 'error';
      return html`<div class=${`wf-row clickable ${selected === s.span_id ? 'selected' : ''}`} role="row" tabindex="0" data-span=${s.span_id}
        onClick=${() => onSelect(s.span_id)} onKeyDown=${(e) => e.key === 'Enter' && onSelect(s.span_id)}>
        <div class="wf-name" style=${{ paddingLeft: `${depth * 16}px` }}><span class=${`wf-kind ${s.kind}`}>${s.kind}</span> ${s.name}</div>
        <div class="wf-dur">${ms(s.duration_ms)}</div>
        <div class="wf-track">
          <span class=${`wf-bar ${s.kind} ${err ? 'error' : ''}`} title=${err ? s.status_message : undefined} style=${{ left: pct(s.start_ms - start), width: `max(2px, ${pct(s.duration_ms)})` }}></span>
          ${s.events.map((e) => html`<span class="wf-event" title=${e.name} style=${{ left: pct(e.time_ms - start) }}></span>`)}
        </div>
      </div>`;
    })}
  </div>`;
}

/** An attribute's value for a person: numbers to 6 significant digits, arrays and objects as JSON. */
const show = (v) => (typeof v === 'number' && !Number.isInteger(v) ? String(Number(v.toPrecision(6))) : typeof v === 'object' ? JSON.stringify(v) : String(v));

function SpanDetail({ span }) {
  const attrs = Object.entries(span.attributes).sort(([a], [b]) => a.localeCompare(b));
  return html`<aside class="panel detail span-detail" aria-label="Span details">
    <h2>${span.name}</h2>
    <dl>
      <dt>Kind</dt><dd>${span.kind}</dd>
      <dt>Status</dt><dd>${span.status}${span.status_message ? ` — ${span.status_message}` : ''}</dd>
      <dt>Duration</dt><dd>${ms(span.duration_ms)}</dd>
      <dt>Span id</dt><dd><code>${span.span_id}</code></dd>
      ${attrs.map(([k, v]) => html`<dt><code>${k}</code></dt><dd>${show(v)}</dd>`)}
    </dl>
    ${span.events.length ? html`<h2 style=${{ marginTop: '14px' }}>Events</h2><dl>${span.events.map((e) => html`<dt>${e.name}</dt><dd>+${ms(e.time_ms - span.start_ms)}${Object.entries(e.attributes).map(([k, v]) => ` ${k} = ${show(v)}`)}</dd>`)}</dl>` : null}
  </aside>`;
}

/** What the list shows of a trace's SERVER span: the model (served, else as sent), the key's name, the HTTP status. */
function facts(root) {
  const a = root.attributes;
  return {
    model: a['gw.served_model'] ?? a['gw.model'],
    asked: a['gw.model'],
    key: a['gw.key'],
    status: a['http.response.status_code'],
    error: root.status === 'error',
    why: a['error.type'] ?? root.status_message,
  };
}

export function Traces() {
  const [traceId, setTraceId] = useState(wanted());
  const [span, setSpan] = useState(null);
  const [live, setLive] = useState(!traceId);
  useEffect(() => {
    const on = () => setTraceId(wanted());
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  const { data, error } = useLoad(() => api.traces({ limit: 50 }), [], { refreshMs: live ? 3000 : undefined });
  const one = useLoad(() => (traceId ? api.traces({ trace_id: traceId }) : Promise.resolve([])), [traceId]);
  const traces = data ?? [];
  const trace = one.data?.[0] ?? traces.find((t) => t.trace_id === traceId) ?? (traceId ? undefined : traces[0]);
  const root = (t) => t.spans.find((s) => s.kind === 'server') ?? t.spans[0];
  const selected = trace?.spans.find((s) => s.span_id === span) ?? (trace ? (trace.spans.find((s) => s.kind === 'client') ?? root(trace)) : undefined);
  const pick = (id) => {
    setSpan(null);
    location.hash = `#/traces?trace=${id}`;
  };
  return html`<div class="page-head">
      <div><h1>Traces</h1><div class="sub">The spans this gateway exported last (OpenTelemetry, GenAI conventions): a SERVER span per request, a CLIENT span per upstream attempt.</div></div>
      <div class="controls"><label><input type="checkbox" checked=${live} onChange=${(e) => setLive(e.currentTarget.checked)} /> Live</label></div>
    </div>
    <${Problem} error=${error ?? one.error} />
    ${data === null ? html`<div class="alert info">Traces need the otel extension: add <code>[extensions.otel]</code> (with the collector's <code>endpoint</code>) to the gateway config and restart.</div>` : null}
    ${
      trace
        ? html`<section class="panel">
      <div class="panel-head"><h2>Trace <code>${trace.trace_id}</code></h2><span class="muted">${when(new Date(root(trace).start_ms).toISOString())} · ${trace.spans.length} spans · ${ms(root(trace).duration_ms)}</span></div>
      <div class="trace-split">
        <div class="scroll"><${Waterfall} trace=${trace} selected=${selected?.span_id} onSelect=${setSpan} /></div>
        ${selected ? html`<${SpanDetail} span=${selected} />` : null}
      </div>
    </section>`
        : traceId && !one.loading
          ? html`<div class="alert info">Trace <code>${traceId}</code> is not among the spans kept here (the last <code>recent_spans</code>); look it up in your trace backend.</div>`
          : null
    }
    <section class="panel">
      <h2>Recent traces</h2>
      ${
        traces.length === 0
          ? html`<p class="empty">No spans exported yet.</p>`
          : html`<table class="cards traces"><thead><tr><th>Time</th><th>Request</th><th>Model</th><th>Key</th><th>Status</th><th class="num">Duration</th><th class="num">Spans</th><th>Trace id</th></tr></thead>
        <tbody>${traces.map((t) => {
          const r = root(t);
          const f = facts(r);
          return html`<tr class=${`clickable ${trace?.trace_id === t.trace_id ? 'selected' : ''}`} tabindex="0" data-trace=${t.trace_id} onClick=${() => pick(t.trace_id)} onKeyDown=${(e) => e.key === 'Enter' && pick(t.trace_id)}>
            <td data-label="Time">${when(new Date(r.start_ms).toISOString())}</td>
            <td data-label="Request">${r.name}</td>
            <td data-label="Model" class="model" title=${f.asked !== f.model ? `${f.model} (asked: ${f.asked})` : f.model}>${f.model ?? '–'}</td>
            <td data-label="Key">${f.key ?? '–'}</td>
            <td data-label="Status" data-status=${f.status}>${f.status ?? '–'}${f.error ? html` <span class="badge bad" title=${f.why}>error</span>` : null}</td>
            <td class="num" data-label="Duration">${ms(r.duration_ms)}</td>
            <td class="num" data-label="Spans">${t.spans.length}</td>
            <td data-label="Trace id"><code>${t.trace_id.slice(0, 16)}…</code></td>
          </tr>`;
        })}</tbody></table>`
      }
    </section>`;
}
