// The virtual-key settings as form fields (docs/configuration.md "Virtual keys"): the create
// form and a key's edit form share them. Values travel as typed so the admin API judges them
// and its error lands next to the field it names (`error.param`).
import { html } from './html.js';

/** The settings, in the admin API's names, with how each is shown and read. */
export const SETTINGS = [
  { name: 'models', label: 'Models', hint: 'comma-separated ids or patterns with *, e.g. gpt-4o, claude-*; empty: every model' },
  { name: 'requests_per_minute', label: 'Requests / min', hint: 'empty: the rate_limit default' },
  { name: 'tokens_per_minute', label: 'Tokens / min', hint: 'empty: the rate_limit default' },
  { name: 'budget', label: 'Budget (USD)', hint: 'empty: the budget extension default' },
  { name: 'budget_period', label: 'Budget period', hint: 'UTC calendar periods; weeks start Monday' },
  { name: 'expires_at', label: 'Expires at', hint: 'RFC 3339 or a date (00:00 UTC), e.g. 2027-01-01' },
  { name: 'tags', label: 'Tags', hint: 'name=value, comma-separated, e.g. team=ml, env=prod' },
  { name: 'max_parallel_requests', label: 'Parallel requests', hint: 'requests in flight at once; empty: no cap' },
  { name: 'mcp_tools', label: 'MCP tools', hint: 'full tool names or patterns with *, e.g. fs__*, github__search_*; empty: no MCP access' },
  { name: 'tool_calls_per_minute', label: 'Tool calls / min', hint: 'MCP tool calls; empty: the rate_limit default' },
  { name: 'guardrails', label: 'Guardrails', hint: "checks to add, -name to opt out, e.g. pii_strict, -secrets; empty: the checks' own scope" },
];

const NUMBERS = new Set(['requests_per_minute', 'tokens_per_minute', 'budget', 'max_parallel_requests', 'tool_calls_per_minute']);
/** Settings that are lists, shown comma-separated. */
const LISTS = new Set(['models', 'mcp_tools', 'guardrails']);

/** A key listing's settings as form text. */
export function formValues(k = {}) {
  const v = {};
  for (const { name } of SETTINGS) {
    const x = k[name];
    if (x === null || x === undefined) v[name] = '';
    else if (LISTS.has(name)) v[name] = x.join(', ');
    else if (name === 'tags')
      v[name] = Object.entries(x)
        .map(([t, val]) => `${t}=${val}`)
        .join(', ');
    else v[name] = String(x);
  }
  return v;
}

/** Form text → the API value of one setting (null = unset). A number field keeps text that is no number, for the API to name. */
function apiValue(name, text) {
  const t = text.trim();
  if (t === '') return null;
  if (LISTS.has(name))
    return t
      .split(',')
      .map((m) => m.trim())
      .filter(Boolean);
  if (name === 'tags') {
    const tags = {};
    for (const part of t.split(',')) {
      const p = part.trim();
      if (!p) continue;
      const eq = p.indexOf('=');
      tags[eq < 0 ? p : p.slice(0, eq).trim()] = eq < 0 ? '' : p.slice(eq + 1).trim();
    }
    return tags;
  }
  if (NUMBERS.has(name)) return /^-?\d+(\.\d+)?$/.test(t) ? Number(t) : t;
  return t;
}

/** The settings a create form gives (unset ones left out). */
export function createBody(form) {
  const body = {};
  for (const { name } of SETTINGS) {
    const v = apiValue(name, form[name] ?? '');
    if (v !== null) body[name] = v;
  }
  return body;
}

/**
 * A JSON merge patch from `before` (a key listing) to the form: changed settings only, null
 * for a cleared one, and for tags each removed tag as null (a patch merges tags one by one).
 */
export function patchBody(before, form) {
  const was = formValues(before);
  const patch = {};
  for (const { name } of SETTINGS) {
    if ((form[name] ?? '').trim() === was[name].trim()) continue;
    const v = apiValue(name, form[name] ?? '');
    if (name === 'tags' && v !== null && before.tags) {
      for (const t of Object.keys(before.tags)) if (!(t in v)) v[t] = null;
    }
    patch[name] = v;
  }
  return patch;
}

/** The setting an API error names (`tags.team` → `tags`), if it is one of the form's. */
export function fieldOf(error) {
  const p = error?.param?.split(/[.[]/)[0];
  return SETTINGS.some((s) => s.name === p) ? p : undefined;
}

/**
 * The settings as labelled inputs; `error` shows under the field it names; `readOnly` for
 * file keys; `prefix` keeps element ids apart when two forms are on the page.
 */
export function SettingsFields({ values, onInput, error, readOnly, prefix }) {
  const bad = fieldOf(error);
  return SETTINGS.map(({ name, label, hint }) => {
    const id = `${prefix}-${name}`;
    const common = {
      id,
      name,
      value: values[name] ?? '',
      disabled: readOnly,
      'aria-invalid': bad === name ? 'true' : undefined,
      'aria-describedby': bad === name ? `${id}-error` : `${id}-hint`,
      onInput: (e) => onInput(name, e.currentTarget.value),
    };
    const input =
      name === 'budget_period'
        ? html`<select ...${common} aria-label=${label}>
            <option value="">default (lifetime)</option>
            ${['daily', 'weekly', 'monthly', 'lifetime'].map((p) => html`<option value=${p}>${p}</option>`)}
          </select>`
        : html`<input ...${common} aria-label=${label} spellcheck="false" autocomplete="off" inputmode=${NUMBERS.has(name) ? 'decimal' : undefined} />`;
    return html`<label class=${`field setting${bad === name ? ' invalid' : ''}`} data-setting=${name}>
      <span>${label}</span>${input}
      ${bad === name ? html`<small class="field-error" id=${`${id}-error`} role="alert">${error.message}</small>` : html`<small class="hint" id=${`${id}-hint`}>${hint}</small>`}
    </label>`;
  });
}
