// Keys: every gateway key with its spend against its budget, its rate-limit window use, its
// settings and the models it used; manage one (key-detail.js: edit, rotate, past periods),
// create a key with any setting (its secret shown once) and revoke one made at runtime.
import { useState } from 'preact/hooks';
import { api } from './api.js';
import { count, usd } from './format.js';
import { html } from './html.js';
import { KeyDetail, utc } from './key-detail.js';
import { createBody, fieldOf, formValues, SettingsFields } from './key-form.js';
import { Problem, useLoad } from './load.js';

/** A bar for `used` of `limit`, amber from 75%, red from 100%. */
function Meter({ used, limit, text }) {
  const r = limit > 0 ? used / limit : 0;
  const cls = r >= 1 ? 'meter bad' : r >= 0.75 ? 'meter warn' : 'meter';
  return html`<div class=${cls} role="meter" aria-valuemin="0" aria-valuemax=${limit} aria-valuenow=${used} aria-label=${text}>
    <div class="bar"><i style=${{ width: `${Math.min(100, r * 100).toFixed(1)}%` }}></i></div><small>${text}</small></div>`;
}

/** Revoke button that asks once more before acting. */
function Revoke({ name, onDone, onError }) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  if (!asking) return html`<button class="small danger" onClick=${() => setAsking(true)}>Revoke</button>`;
  const go = async () => {
    setBusy(true);
    try {
      await api.revokeKey(name);
      onDone(name);
    } catch (e) {
      onError(e);
      setBusy(false);
      setAsking(false);
    }
  };
  return html`<span class="controls"><button class="small danger confirm" disabled=${busy} onClick=${go}>Revoke ${name}</button><button class="small" onClick=${() => setAsking(false)}>Cancel</button></span>`;
}

function CreateKey({ created, setCreated, onCreated }) {
  const [error, setError] = useState(null);
  const [copied, setCopied] = useState(false);
  const [values, setValues] = useState(() => formValues());
  const submit = async (e) => {
    e.preventDefault();
    const form = e.currentTarget;
    const name = new FormData(form).get('name')?.toString().trim();
    setError(null);
    setCopied(false);
    try {
      const k = await api.createKey({ name, ...createBody(values) });
      setCreated(k);
      form.reset();
      setValues(formValues());
      onCreated();
    } catch (err) {
      setError(err);
    }
  };
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(created.key);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };
  return html`<section class="panel">
    <div class="panel-head"><h2>Create a key</h2><span class="muted">Runtime keys are stored hashed and listed by their first 8 characters; the secret is shown once. Every setting is optional.</span></div>
    ${error && !fieldOf(error) ? html`<${Problem} error=${error} />` : null}
    <form class="stack create-key" method="post" onSubmit=${submit}>
      <label class="field"><span>Name</span><input name="name" required pattern="[A-Za-z0-9_.\\-]{1,64}" placeholder="e.g. ci-bot" aria-label="Key name" /><small class="hint">letters, digits, "_", "-", "."</small></label>
      <${SettingsFields} prefix="new" values=${values} error=${error} onInput=${(n, v) => setValues((s) => ({ ...s, [n]: v }))} />
      <div class="controls"><button class="primary" type="submit">Create key</button></div>
    </form>
    ${
      created
        ? html`<div class="alert ok" role="status" data-created-key=${created.name}>
      Key <b>${created.name}</b> created. Copy it now: it will not be shown again.
      <div class="secret"><code class="new-key">${created.key}</code><button class="small" onClick=${copy}>${copied ? 'Copied' : 'Copy'}</button><button class="small" onClick=${() => setCreated(null)}>Done</button></div>
    </div>`
        : null
    }
  </section>`;
}

/** A key's settings in one cell: models, period, expiry, tags, parallel cap, guardrails. */
function Settings({ k }) {
  const parts = [];
  if (k.models) parts.push(html`<span class="chip" title="models">${k.models.join(', ')}</span>`);
  if (k.budget_period && k.budget_period !== 'lifetime') parts.push(html`<span class="chip">${k.budget_period}</span>`);
  if (k.expires_at)
    parts.push(html`<span class=${`chip${k.expired ? ' bad' : ''}`} title="expires at">${k.expired ? 'expired' : 'expires'} ${utc(k.expires_at)}</span>`);
  if (k.tags) for (const [t, v] of Object.entries(k.tags)) parts.push(html`<span class="chip" title="tag">${t}=${v}</span>`);
  if (k.max_parallel_requests) parts.push(html`<span class="chip" title="parallel requests">≤ ${k.max_parallel_requests} at once</span>`);
  if (k.guardrails?.length) parts.push(html`<span class="chip" title="guardrails">guardrails ${k.guardrails.join(', ')}</span>`);
  return parts.length ? html`<span class="chips">${parts}</span>` : html`<span class="muted">defaults</span>`;
}

/** The secret's first characters as the server lists them (`sk-AbCd1…`): never the secret, never its hash. */
function KeyPrefix({ k }) {
  if (k.key === '…') return html`<code class="key-prefix" title="Created before gw kept key prefixes: rotate it to get one">…</code>`;
  return html`<code class="key-prefix" title="The first characters of the secret">${k.key}</code>`;
}

/** A stored runtime key gw cannot load: why, and the way out (revoke, then create it again). */
function Unreadable({ k, onDone, onError }) {
  return html`<tr data-key=${k.name} class="unreadable">
    <td data-label="Name"><span><b>${k.name}</b> <span class="badge bad">unreadable</span></span></td>
    <td data-label="Key"><span class="muted">–</span></td>
    <td data-label="Problem" colspan="5"><span class="problem">Stored, but gw cannot load it: ${k.reason}. Requests with its secret get 401; revoke it and create it again.</span></td>
    <td data-label=""><span class="controls"><${Revoke} name=${k.name} onError=${onError} onDone=${onDone} /></span></td>
  </tr>`;
}

export function Keys() {
  const [actionError, setActionError] = useState(null);
  const [revoked, setRevoked] = useState(null);
  // the secret of the key just created: shown until dismissed, or until that key is revoked
  const [created, setCreated] = useState(null);
  // the key being managed (its panel under the table)
  const [selected, setSelected] = useState(null);
  const { data, error, loading, reload } = useLoad(
    async () => {
      const [keys, budget, limits, usage, history] = await Promise.all([api.keys(), api.budget(), api.rateLimits(), api.usage(), api.budgetHistory()]);
      return { keys, budget, limits, usage, history };
    },
    [],
    { refreshMs: 10_000 },
  );

  const rows = (data?.keys ?? []).map((k) => {
    const b = data.budget?.find((x) => x.key === k.name);
    const l = data.limits?.find((x) => x.key === k.name);
    const models = (data.usage ?? []).filter((u) => u.key === k.name).sort((a, z) => z.total_tokens - a.total_tokens);
    // the listing's own fields (budget, models…) are settings: what was spent and used goes beside them
    return { ...k, spend: b, limit: l, used: models };
  });
  return html`<div class="page-head"><div><h1>Keys</h1><div class="sub">Gateway keys: spend against budget, rate-limit use in the current window, models used.</div></div></div>
    <${Problem} error=${error || actionError} />
    ${revoked ? html`<div class="alert ok" role="status">Key <b>${revoked}</b> revoked: it is refused from the next request on.</div>` : null}
    <section class="panel">
      ${
        loading && !data
          ? html`<p class="loading">Loading…</p>`
          : rows.length === 0
            ? html`<p class="empty">No gateway keys: the gateway runs open. Create one below.</p>`
            : html`<div class="scroll"><table class="cards keys">
        <thead><tr><th>Name</th><th>Key</th><th>Spend / budget</th><th>Requests / min</th><th>Tokens / min</th><th>Settings</th><th>Models used</th><th></th></tr></thead>
        <tbody>${rows.map((k) =>
          k.unreadable
            ? html`<${Unreadable} k=${k} onError=${setActionError} onDone=${(n) => {
                setActionError(null);
                setRevoked(n);
                reload();
              }} />`
            : html`<tr data-key=${k.name}>
          <td data-label="Name"><span><b>${k.name}</b> <span class=${`badge ${k.source === 'runtime' ? 'ok' : ''}`}>${k.source}</span></span></td>
          <td data-label="Key"><${KeyPrefix} k=${k} /></td>
          <td data-label="Spend / budget">${k.spend ? html`<${Meter} used=${k.spend.spent_usd} limit=${k.spend.budget_usd} text=${`${usd(k.spend.spent_usd)} of ${usd(k.spend.budget_usd)}${k.spend.reserved_usd ? ` (+${usd(k.spend.reserved_usd)} held)` : ''}`} />` : html`<span class="muted">${data.budget === null ? 'budget off' : '–'}</span>`}</td>
          <td data-label="Requests / min">${k.limit ? html`<${Meter} used=${k.limit.requests} limit=${k.limit.requests_per_minute} text=${`${count(k.limit.requests)} of ${count(k.limit.requests_per_minute)}`} />` : html`<span class="muted">${data.limits === null ? 'no limit' : '–'}</span>`}</td>
          <td data-label="Tokens / min">${k.limit?.tokens_per_minute ? html`<${Meter} used=${k.limit.tokens} limit=${k.limit.tokens_per_minute} text=${`${count(k.limit.tokens)} of ${count(k.limit.tokens_per_minute)}`} />` : html`<span class="muted">no limit</span>`}</td>
          <td data-label="Settings"><${Settings} k=${k} /></td>
          <td data-label="Models used">${k.used.length ? html`<span class="chips">${k.used.slice(0, 6).map((m) => html`<span class="chip" title=${`${count(m.requests)} requests, ${count(m.prompt_tokens)} prompt + ${count(m.completion_tokens)} completion tokens`}>${m.model} · ${count(m.total_tokens)}</span>`)}${k.used.length > 6 ? html`<span class="chip">+${k.used.length - 6}</span>` : null}</span>` : html`<span class="muted">${data.usage === null ? 'usage off' : 'none yet'}</span>`}</td>
          <td data-label=""><span class="controls"><button class="small" aria-expanded=${selected === k.name} onClick=${() => setSelected(selected === k.name ? null : k.name)}>${k.source === 'runtime' ? 'Manage' : 'View'}</button>${
            k.source === 'runtime'
              ? html`<${Revoke} name=${k.name} onError=${setActionError} onDone=${(n) => {
                  setActionError(null);
                  setRevoked(n);
                  if (created?.name === n) setCreated(null);
                  if (selected === n) setSelected(null);
                  reload();
                }} />`
              : html`<span class="muted" title="Defined in the config file: edit or remove it there, then reload">config file</span>`
          }</span></td>
        </tr>`,
        )}</tbody>
      </table></div>`
      }
    </section>
    ${(() => {
      const k = selected && rows.find((r) => r.name === selected);
      if (!k) return null;
      const history = data.history === null ? null : (data.history ?? []).filter((h) => h.key === k.name).reverse();
      return html`<${KeyDetail} key=${`${k.name}:${k.source}`} k=${k} budget=${data.budget === null ? null : k.spend} history=${history} onChanged=${reload} onClose=${() => setSelected(null)} />`;
    })()}
    <${CreateKey} created=${created} setCreated=${setCreated} onCreated=${() => {
      setRevoked(null);
      reload();
    }} />`;
}
