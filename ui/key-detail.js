// One key, managed: spend against its budget in the current period (UTC, with its reset
// time), every setting editable (runtime keys; a config-file key is shown read-only), the
// secret rotated with a grace period, and the spend of every recorded period.
import { useState } from 'preact/hooks';
import { api } from './api.js';
import { usd } from './format.js';
import { html } from './html.js';
import { fieldOf, formValues, patchBody, SettingsFields } from './key-form.js';
import { Problem } from './load.js';

/** RFC 3339 → "2026-12-01 00:00 UTC": budget periods are UTC calendar periods. */
export const utc = (iso) => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : '–');

const PERIOD_NOUN = { daily: 'day', weekly: 'week', monthly: 'month' };

const GRACE = [
  [0, 'none: the old secret stops now'],
  [3600, '1 hour'],
  [86_400, '1 day'],
  [7 * 86_400, '7 days'],
  [30 * 86_400, '30 days'],
];

/** Spend in the current period against the budget, with the period's bounds. */
function Spend({ budget }) {
  if (budget === null) return html`<p class="muted">The budget extension is off: no spend is tracked.</p>`;
  if (!budget) return html`<p class="muted">No spend recorded yet.</p>`;
  const r = budget.budget_usd > 0 ? budget.spent_usd / budget.budget_usd : 0;
  return html`<dl class="facts" data-spend>
    <dt>Spent ${budget.period === 'lifetime' ? 'in total' : `this ${PERIOD_NOUN[budget.period]}`}</dt>
    <dd><b data-spent>${usd(budget.spent_usd)}</b> of <b data-budget>${usd(budget.budget_usd)}</b> (${(r * 100).toFixed(1)}%)${budget.reserved_usd ? html` <span class="muted">+${usd(budget.reserved_usd)} held by requests in flight</span>` : null}</dd>
    <dt>Remaining</dt><dd>${budget.remaining_usd < 0 ? html`none <span class="muted">(over by ${usd(-budget.remaining_usd)})</span>` : usd(budget.remaining_usd)}</dd>
    <dt>Period</dt><dd data-period>${budget.period}${budget.period_start ? ` from ${utc(budget.period_start)}` : ''}</dd>
    <dt>Resets</dt><dd data-resets>${budget.resets_at ? utc(budget.resets_at) : 'never (lifetime budget)'}</dd>
  </dl>`;
}

/** Every recorded period of this key, newest first. */
function History({ rows }) {
  if (rows === null) return null;
  if (!rows.length) return html`<p class="muted">No periods recorded yet.</p>`;
  return html`<div class="scroll"><table class="history" data-history>
    <thead><tr><th>Period</th><th>Start (UTC)</th><th>Reset (UTC)</th><th class="num">Spent</th></tr></thead>
    <tbody>${rows.map((h) => html`<tr><td>${h.period}</td><td>${utc(h.period_start)}</td><td>${h.resets_at ? utc(h.resets_at) : '–'}</td><td class="num">${usd(h.spent_usd)}</td></tr>`)}</tbody>
  </table></div>`;
}

/** New secret with a grace period for the old one; the new secret is shown once. */
function Rotate({ name, onDone }) {
  const [grace, setGrace] = useState(86_400);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  const [rotated, setRotated] = useState(null);
  const go = async () => {
    setBusy(true);
    setError(null);
    try {
      setRotated(await api.rotateKey(name, grace));
      onDone();
    } catch (e) {
      setError(e);
    }
    setBusy(false);
  };
  return html`<div class="rotate">
    <${Problem} error=${error} />
    <div class="controls">
      <label>Old secret valid for
        <select aria-label="Grace period" value=${grace} onChange=${(e) => setGrace(Number(e.currentTarget.value))}>
          ${GRACE.map(([s, label]) => html`<option value=${s}>${label}</option>`)}
        </select></label>
      <button class="small" disabled=${busy} onClick=${go}>Rotate secret</button>
    </div>
    ${
      rotated
        ? html`<div class="alert ok" role="status" data-rotated>New secret for <b>${name}</b>, shown once:
          <div class="secret"><code class="new-key">${rotated.key}</code></div>
          ${rotated.previous_key_valid_until ? html`<div class="note">The previous secret works until ${utc(rotated.previous_key_valid_until)}.</div>` : html`<div class="note">The previous secret no longer works.</div>`}</div>`
        : null
    }
  </div>`;
}

/** The panel for key `k` (a listing from /v1/admin/keys). */
export function KeyDetail({ k, budget, history, onChanged, onClose }) {
  const [values, setValues] = useState(() => formValues(k));
  const [error, setError] = useState(null);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  const file = k.source === 'file';
  const patch = patchBody(k, values);
  const dirty = Object.keys(patch).length > 0;
  const save = async (e) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setSaved(false);
    try {
      const next = await api.patchKey(k.name, patch);
      setValues(formValues(next));
      setSaved(true);
      onChanged();
    } catch (err) {
      setError(err);
    }
    setBusy(false);
  };
  return html`<section class="panel key-detail" data-key-detail=${k.name} aria-label=${`Key ${k.name}`}>
    <div class="panel-head"><h2>Key <code>${k.name}</code> <span class=${`badge ${file ? '' : 'ok'}`}>${file ? 'config file' : 'runtime'}</span></h2>
      <button class="small" onClick=${onClose}>Close</button></div>
    <div class="grid">
      <div><h3>Spend</h3><${Spend} budget=${budget} /></div>
      <div><h3>Past periods</h3><${History} rows=${history} /></div>
    </div>
    <h3>Settings</h3>
    ${file ? html`<div class="alert info" data-readonly>Defined in the config file: read-only here. Edit <code>[keys.${k.name}]</code> there, then reload.</div>` : null}
    ${error && !fieldOf(error) ? html`<${Problem} error=${error} />` : null}
    ${saved ? html`<div class="alert ok" role="status">Saved: the next request of <b>${k.name}</b> follows these settings.</div>` : null}
    <form class="stack settings" onSubmit=${save}>
      <${SettingsFields} prefix=${`k-${k.name}`} values=${values} error=${error} readOnly=${file} onInput=${(n, v) => {
        setSaved(false);
        setValues((s) => ({ ...s, [n]: v }));
      }} />
      ${
        file
          ? null
          : html`<div class="controls"><button class="primary" type="submit" disabled=${busy || !dirty}>Save changes</button><button type="button" disabled=${busy || !dirty} onClick=${() => {
              setValues(formValues(k));
              setError(null);
            }}>Undo</button></div>`
      }
    </form>
    ${file ? null : html`<h3>Rotate</h3><${Rotate} name=${k.name} onDone=${onChanged} />`}
  </section>`;
}
