// The console's runtime changes (providers, MCP servers): a Delete button that asks once
// more before it calls `remove(name)`, and a create form's state (busy, error, what was made).
import { useState } from 'preact/hooks';
import { html } from './html.js';

export function Delete({ name, remove, onDone, onError }) {
  const [asking, setAsking] = useState(false);
  if (!asking) return html`<button class="small danger" onClick=${() => setAsking(true)}>Delete</button>`;
  const go = async () => {
    try {
      await remove(name);
      onDone(name);
    } catch (e) {
      onError(e);
      setAsking(false);
    }
  };
  return html`<span class="controls"><button class="small danger confirm" onClick=${go}>Delete ${name}</button><button class="small" onClick=${() => setAsking(false)}>Cancel</button></span>`;
}

/**
 * A create form's state: `submit(body, form)` calls `create(body)`, keeps what it made in
 * `done` (the form is reset and `onCreated` told) or the API's refusal in `error`.
 */
export function useCreate(create, onCreated) {
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(null);
  const submit = async (body, form) => {
    setBusy(true);
    setError(null);
    setDone(null);
    try {
      setDone(await create(body));
      form.reset();
      onCreated();
    } catch (err) {
      setError(err);
    }
    setBusy(false);
  };
  return { error, busy, done, submit };
}
