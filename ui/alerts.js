// Alerts: what gw told the operator (the alerts extension's recent alerts, shared by every
// instance on one store), the webhooks they went to and the rules that raise them.
import { api } from './api.js';
import { when } from './format.js';
import { html } from './html.js';
import { Problem, useLoad } from './load.js';

const SEVERITY = { critical: 'bad', warning: 'warn', resolved: 'ok', info: '' };

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
        <thead><tr><th>Time</th><th>Severity</th><th>Rule</th><th>Alert</th></tr></thead>
        <tbody>${alerts.map(
          (a) => html`<tr data-alert=${a.id}>
          <td data-label="Time" title=${a.time}>${when(a.time)}</td>
          <td data-label="Severity"><span class=${`badge ${SEVERITY[a.severity] ?? ''}`}>${a.severity}</span></td>
          <td data-label="Rule">${a.rule}</td>
          <td data-label="Alert" class="text">${a.title}<div class="sub">${Object.entries(a.details)
            .map(([k, v]) => `${k}: ${v ?? '–'}`)
            .join(' · ')}</div></td>
        </tr>`,
        )}</tbody>
      </table></div>`
      }
    </section>
    <div class="grid">
      <section class="panel"><h2>Webhooks</h2><ul class="plain">${(data?.webhooks ?? []).map((w) => html`<li><b>${w.name}</b> <span class="badge">${w.format}</span></li>`)}</ul>
        <p class="note">Send a sample to each: <code>gw alerts test</code>.</p></section>
      <section class="panel"><h2>Rules</h2><ul class="plain">${(data?.rules ?? []).map((r) => html`<li>${ruleText(r)}</li>`)}</ul></section>
    </div>`;
}
