// A page's view in the URL hash (`#/requests?key=ci&status=5xx`): a drill-down link can be
// shared, and the back button returns to the view before it. Nothing secret goes here.
import { useEffect, useState } from 'preact/hooks';

/** The parameters of the hash `h` (default the current one) as an object of strings. */
export function hashParams(h = location.hash) {
  const i = h.indexOf('?');
  return i < 0 ? {} : Object.fromEntries(new URLSearchParams(h.slice(i + 1)));
}

/** `#/<page>?<params>`, leaving out empty values (undefined, null, ''). */
export function hashOf(page, params = {}) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return `#/${page}${s ? `?${s}` : ''}`;
}

/** The current hash's parameters, re-read when the hash changes (a link, back, forward). */
export function useHashParams() {
  const [params, setParams] = useState(() => hashParams());
  useEffect(() => {
    const on = () => setParams(hashParams());
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return params;
}

/** Shows `params` of `page` in the URL as a new history entry (back returns to the previous view). */
export function pushView(page, params) {
  const h = hashOf(page, params);
  if (h !== location.hash) location.hash = h;
}

/**
 * Shows `params` of `page` in the URL in place of the current entry (no hashchange event),
 * unless the URL already names another page: a tab clicked while this page was still mounting
 * must win, and its hashchange reads location.hash only when it runs.
 */
export function replaceView(page, params) {
  const current = location.hash.replace(/^#\/?/, '').split('?')[0];
  if (current && current !== page) return;
  const h = hashOf(page, params);
  if (h !== location.hash) history.replaceState(history.state, '', h);
}
