// MCP servers (docs/mcp.md): each server's state and last error, its tools under the names
// clients call (and the server's own name when it had to be hashed), the last 5 minutes of
// calls (per minute, p50/p95, error rate; from the store, so every instance shows the same),
// a stdio server's last stderr lines, and runtime servers (add, delete).
import { useState } from 'preact/hooks';
import { api } from './api.js';
import { Delete, useCreate } from './actions.js';
import { ms, pct, usd, when } from './format.js';
import { html } from './html.js';
import { Problem, useLoad } from './load.js';

const STATE = { up: 'ok', connecting: 'warn', down: 'bad', stopped: 'warn' };

function Tools({ s }) {
  const [open, setOpen] = useState(false);
  if (s.tools.length === 0) return html`<span class="muted">${s.state === 'up' ? 'no tools' : 'none while down'}</span>`;
  const shown = open ? s.tools : s.tools.slice(0, 6);
  return html`<div class="tools">
    <ul class="tool-list">${shown.map(
      (t) =>
        html`<li title=${t.description ?? ''}><code>${t.name}</code>${t.hashed ? html` <span class="sub">own name <code>${t.own}</code></span>` : null}${t.price ? html` <span class="chip">${usd(t.price)}/call</span>` : null}</li>`,
    )}</ul>
    ${s.tools.length > 6 ? html`<button class="small link" onClick=${() => setOpen(!open)}>${open ? 'Fewer' : `All ${s.tools.length} tools`}</button>` : null}
  </div>`;
}

function Calls({ st }) {
  if (!st || st.calls_per_minute === 0) return html`<span class="muted">no calls</span>`;
  const cls = st.error_rate >= 0.2 ? 'bad' : st.error_rate > 0 ? 'warn' : 'ok';
  return html`<div>
    <div>${st.calls_per_minute} / min · <span class=${`badge ${cls}`}>${pct(st.error_rate)} errors</span></div>
    <div class="sub">p50 ${ms(st.p50_ms)} · p95 ${ms(st.p95_ms)}</div>
  </div>`;
}

function Stderr({ name }) {
  const [lines, setLines] = useState(null);
  const [error, setError] = useState(null);
  if (lines === null)
    return html`<div><button class="small" onClick=${() => api.mcpServer(name).then((s) => setLines(s.stderr ?? []), setError)}>stderr</button>${error ? html`<span class="sub">${error.message}</span>` : null}</div>`;
  return html`<pre class="stderr" aria-label=${`stderr of ${name}`}>${lines.length ? lines.join('\n') : '(nothing written)'}</pre>`;
}

function AddServer({ onCreated }) {
  const { error, busy, done, submit: create } = useCreate(api.createMcpServer, onCreated);
  const submit = (e) => {
    e.preventDefault();
    const form = e.currentTarget;
    const f = new FormData(form);
    const target = f.get('target').trim();
    const body = { name: f.get('name').trim() };
    const transport = f.get('transport');
    if (transport === 'stdio') {
      const [command, ...args] = target.split(/\s+/).filter(Boolean);
      Object.assign(body, { transport, command, args });
    } else Object.assign(body, { transport, url: target });
    const cost = f.get('cost').trim();
    if (cost) body.cost_per_call = Number(cost);
    return create(body, form);
  };
  return html`<section class="panel">
    <div class="panel-head"><h2>Add an MCP server</h2><span class="muted">Stored by the gateway and run by every instance. Header values and secrets: use the config file or <code>gw mcp add --header</code>.</span></div>
    <${Problem} error=${error} />
    ${done ? html`<div class=${`alert ${done.state === 'up' ? 'ok' : 'error'}`} role="status">MCP server <b>${done.name}</b> is ${done.state}: ${done.tools.length} tool${done.tools.length === 1 ? '' : 's'}${done.last_error ? ` (${done.last_error})` : ''}</div>` : null}
    <form class="stack" method="post" onSubmit=${submit} autocomplete="off">
      <label class="field"><span>Name</span><input name="name" required pattern="[a-z0-9_]{1,24}" placeholder="e.g. github" /></label>
      <label class="field"><span>Transport</span><select name="transport"><option value="http">streamable HTTP</option><option value="sse">SSE (old servers)</option><option value="stdio">stdio</option></select></label>
      <label class="field"><span>URL or command</span><input name="target" required placeholder="https://… or npx -y @modelcontextprotocol/server-…" spellcheck="false" /></label>
      <label class="field"><span>USD per call</span><input name="cost" inputmode="decimal" placeholder="0" /></label>
      <button class="primary" type="submit" disabled=${busy}>${busy ? 'Connecting…' : 'Add server'}</button>
    </form>
  </section>`;
}

export function Mcp() {
  const [actionError, setActionError] = useState(null);
  const { data, error, loading, reload } = useLoad(() => api.mcpServers(), [], { refreshMs: 5000 });
  const servers = data ?? [];
  const up = servers.filter((s) => s.state === 'up').length;
  const tools = servers.reduce((n, s) => n + (s.state === 'up' ? s.tools.length : 0), 0);
  return html`<div class="page-head"><div><h1>MCP servers</h1><div class="sub">${
    data ? `${up} of ${servers.length} up · ${tools} tools behind /mcp · calls over the last 5 minutes, all instances` : 'The MCP servers behind /mcp'
  }</div></div></div>
    <${Problem} error=${error || actionError} />
    <section class="panel">
      ${
        loading && !data
          ? html`<p class="loading">Loading…</p>`
          : servers.length === 0
            ? html`<p class="muted">No MCP servers: add one below, with <code>gw mcp add</code>, or as <code>[mcp_servers.&lt;name&gt;]</code> in the config.</p>`
            : html`<div class="scroll"><table class="cards mcp">
        <thead><tr><th>Server</th><th>State</th><th>Tools</th><th>Calls</th><th></th></tr></thead>
        <tbody>${servers.map(
          (s) => html`<tr data-server=${s.name}>
          <td data-label="Server"><div><b>${s.name}</b><div class="sub">${s.transport} · ${s.source}${s.protocol_version ? ` · ${s.protocol_version}` : ''}</div><div class="sub mono target">${s.url ?? [s.command, ...(s.args ?? [])].join(' ')}</div></div></td>
          <td data-label="State"><div><span class=${`badge ${STATE[s.state] ?? ''}`}>${s.state}</span><div class="sub">since ${when(s.since)}</div>${
            s.last_error ? html`<div class="sub error-text" title=${s.last_error_at ? `at ${when(s.last_error_at)}` : ''}>${s.last_error}</div>` : null
          }${s.warnings.map((w) => html`<div class="sub warn-text">${w}</div>`)}</div></td>
          <td data-label="Tools"><${Tools} s=${s} /></td>
          <td data-label="Calls"><${Calls} st=${s.stats} /></td>
          <td data-label=""><div class="actions">${s.transport === 'stdio' ? html`<${Stderr} name=${s.name} />` : null}${
            s.source === 'runtime'
              ? html`<${Delete} remove=${api.deleteMcpServer} name=${s.name} onError=${setActionError} onDone=${() => {
                  setActionError(null);
                  reload();
                }} />`
              : html`<span class="muted" title="Defined in the config file">config file</span>`
          }</div></td>
        </tr>`,
        )}</tbody>
      </table></div>`
      }
    </section>
    <${AddServer} onCreated=${reload} />`;
}
