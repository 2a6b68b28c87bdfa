// Loading admin data into a component: state for the value, the error and the first load,
// an optional refresh period (paused while the tab is hidden), and reload() after changes.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { html } from './html.js';

/** Runs `fn` now, whenever `deps` change, and every `refreshMs` (if given). */
export function useLoad(fn, deps, { refreshMs } = {}) {
  const [state, setState] = useState({ data: undefined, error: undefined, loading: true });
  const seq = useRef(0);
  const run = useCallback(async () => {
    const mine = ++seq.current;
    try {
      const data = await fn();
      if (mine === seq.current) setState({ data, error: undefined, loading: false });
    } catch (error) {
      if (mine === seq.current) setState((s) => ({ data: s.data, error, loading: false }));
    }
  }, deps);
  useEffect(() => {
    setState((s) => ({ ...s, loading: true }));
    run();
    if (!refreshMs) return undefined;
    const t = setInterval(() => {
      if (document.visibilityState === 'visible') run();
    }, refreshMs);
    return () => clearInterval(t);
  }, [run, refreshMs]);
  return { ...state, reload: run };
}

/** An API error as one line for the person reading the page. */
export function Problem({ error }) {
  if (!error) return null;
  const what = error.status === 0 ? error.message : `${error.message}${error.status ? ` (HTTP ${error.status})` : ''}`;
  return html`<div class="alert error" role="alert">${what}</div>`;
}
