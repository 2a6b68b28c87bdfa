// Alerts: what gw told the operator (the alerts extension's recent alerts, shared by every
// instance on one store), what became of each at each webhook, the webhooks with their last
// delivery, and the rules that raise them.
import { api } from './api.js';
import { when } from './format.js';
import { html } from './html.js';
import { Problem, useLoad } from './load.js';

const SEVERITY = { critical: 'bad', warning: 'warn', resolved: 'ok', info: '' };
const OUTCOME = { delivered: 'ok', failed: 'bad', dropped: 'bad', pending: '', unknown: '' };

/** One delivery in a few words: `HTTP 200`, `HTTP 503 · 5 attempts`, the error, or nothing yet. */
function outcomeDetail(d) {
  if (d.outcome === 'pending' || d.outcome === 'unknown') return '';
  const why = d.outcome === 'delivered' ? `HTTP ${d.status}` : (d.error ?? `HTTP ${d.status}`);
  return d.attempts > 1 ? `${why} · ${d.attempts} attempts` : why;
}

/** A delivery's badge (`delivered`, `failed`…) and its detail, with the time it ended on hover. */
function Outcome({ d, name }) {
  const detail = outcomeDetail(d);
  return html`<span class="delivery" data-delivery=${name ?? d.webhook} data-outcome=${d.outcome} title=${d.time ? `${d.outcome} at ${d.time}` : undefined}
    >${name ? html`<b>${name}</b> ` : null}<span class=${`badge ${OUTCOME[d.outcome] ?? ''}`}>${d.outcome}</span>${detail ? html` <span class="muted">${detail}</span>` : null}</span
  >`;
}

/** A rule in one line: its type and its settings. */
function ruleText(r) {
  const { type, ...rest } = r;
  const s = Object.entries(rest)
    .map(([k, v]) => `${k} ${Array.isArray(v) ? v.join('/') : v}`)
    .join(', ');
  return s ? `${type}: ${s}` : type;
}

export function Alerts() {
  const { data, error, loading } = useLoad(() => api.alerts({ limit: 200 }), [], { refreshMs: 10_000 });
  const head = html`<div class="page-head"><div><h1>Alerts</h1><div class="sub">What gw sent to its webhooks: budgets, circuits, error rates, latency, key expiry (newest first).</div></div></div>`;
  if (loading && data === undefined) return html`${head}<p class="loading">Loading…</p>`;
  if (data === null)
    return html`${head}<section class="panel"><p class="empty">Alerts are off. Add <code>[extensions.alerts]</code> with a webhook to the config (docs/extensions.md, "Alerts"), then restart.</p></section>`;
  const alerts = data?.data ?? [];
  return html`${head}<${Problem} error=${error} />
    <section class="panel">
      ${
        alerts.length === 0
          ? html`<p class="empty">No alert yet.</p>`
          : html`<div class="scroll"><table class="cards alerts">
        <thead><tr><th>Time</th><th>Severity</th><th>Rule</th><th>Alert</th><th>Delivery</th></tr></thead>
        <tbody>${alerts.map(
          (a) => html`<tr data-alert=${a.id}>
          <td data-label="Time" title=${a.time}>${when(a.time)}</td>
          <td data-label="Severity"><span class=${`badge ${SEVERITY[a.severity] ?? ''}`}>${a.severity}</span></td>
          <td data-label="Rule">${a.rule}</td>
          <td data-label="Alert" class="text">${a.title}<div class="sub">${Object.entries(a.details)
            .map(([k, v]) => `${k}: ${v ?? '–'}`)
            .join(' · ')}</div></td>
          <td data-label="Delivery"><div class="deliveries">${(a.deliveries ?? []).map((d) => html`<${Outcome} d=${d} name=${d.webhook} />`)}</div></td>
        </tr>`,
        )}</tbody>
      </table></div>`
      }
    </section>
    <div class="grid">
      <section class="panel"><h2>Webhooks</h2><ul class="plain">${(data?.webhooks ?? []).map(
        (w) => html`<li data-webhook=${w.name}><b>${w.name}</b> <span class="badge">${w.format}</span>
          <div class="sub">${
            w.last_delivery
              ? html`Last delivery <span title=${w.last_delivery.time}>${when(w.last_delivery.time)}</span>: <${Outcome} d=${w.last_delivery} />`
              : 'No delivery yet'
          }</div></li>`,
      )}</ul>
        <p class="note">Send a sample to each: <code>gw alerts test</code>.</p></section>
      <section class="panel"><h2>Rules</h2><ul class="plain">${(data?.rules ?? []).map((r) => html`<li>${ruleText(r)}</li>`)}</ul></section>
    </div>`;
}
