// The console's shell: sign-in, navigation (hash routes: no server routes, nothing secret
// in a URL) and the pages. Every number on a page comes from the admin API (api.js).
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { Alerts } from './alerts.js';
import { signIn, token, whenUnauthorized } from './api.js';
import { html } from './html.js';
import { Keys } from './keys.js';
import { Mcp } from './mcp.js';
import { Models } from './models.js';
import { Overview } from './overview.js';
import { Requests } from './requests.js';
import { Traces } from './traces.js';

const PAGES = [
  ['overview', 'Overview', Overview],
  ['keys', 'Keys', Keys],
  ['models', 'Models & providers', Models, 'Models'],
  ['mcp', 'MCP', Mcp],
  ['requests', 'Requests', Requests],
  ['traces', 'Traces', Traces],
  ['alerts', 'Alerts', Alerts],
];

const route = () => {
  const id = location.hash.replace(/^#\/?/, '').split('?')[0];
  return PAGES.some(([p]) => p === id) ? id : 'overview';
};

/**
 * The page tabs. When they do not fit (a phone), the strip scrolls sideways: a fade with an
 * arrow marks each side that hides tabs (the arrow scrolls), and the current tab is brought into view.
 */
function Tabs({ page }) {
  const strip = useRef(null);
  const [more, setMore] = useState({ start: false, end: false });
  useEffect(() => {
    const nav = strip.current;
    const measure = () => setMore({ start: nav.scrollLeft > 1, end: nav.scrollLeft + nav.clientWidth < nav.scrollWidth - 1 });
    nav.addEventListener('scroll', measure, { passive: true });
    const ro = new ResizeObserver(measure);
    ro.observe(nav);
    measure();
    return () => {
      nav.removeEventListener('scroll', measure);
      ro.disconnect();
    };
  }, []);
  useEffect(() => {
    const nav = strip.current;
    const tab = nav.querySelector('[aria-current="page"]');
    if (!tab) return;
    // scroll the strip only (scrollIntoView would move the page too)
    const left = tab.offsetLeft - nav.offsetLeft;
    if (left < nav.scrollLeft || left + tab.offsetWidth > nav.scrollLeft + nav.clientWidth) nav.scrollLeft = left - (nav.clientWidth - tab.offsetWidth) / 2;
  }, [page]);
  const scroll = (dir) => strip.current.scrollBy({ left: dir * strip.current.clientWidth * 0.7, behavior: 'smooth' });
  return html`<div class="tabs-wrap" data-more-start=${more.start || undefined} data-more-end=${more.end || undefined}>
    <button class="tabs-more start" tabindex="-1" aria-label="Scroll to the previous pages" onClick=${() => scroll(-1)}>‹</button>
    <nav class="tabs" aria-label="Pages" ref=${strip}>
      ${PAGES.map(([id, label, , short]) => html`<a href=${`#/${id}`} aria-current=${page === id ? 'page' : undefined}>${short ? html`<span class="long">${label}</span><span class="short">${short}</span>` : label}</a>`)}
    </nav>
    <button class="tabs-more end" tabindex="-1" aria-label="Scroll to more pages" onClick=${() => scroll(1)}>›</button>
  </div>`;
}

function SignIn({ reason, onDone }) {
  const [error, setError] = useState(reason);
  const [busy, setBusy] = useState(false);
  const submit = async (e) => {
    e.preventDefault();
    const value = new FormData(e.currentTarget).get('token')?.toString().trim();
    if (!value) return setError('Enter the admin token (admin_token in the gateway config).');
    setBusy(true);
    try {
      await signIn(value);
      onDone();
    } catch (err) {
      setError(err.message);
      setBusy(false);
    }
  };
  // method=post: even without this script the token would never land in a URL
  return html`<div class="signin"><div class="panel">
    <h1><img src="/ui/icon.svg" alt="" />gw console</h1>
    <p>Sign in with the gateway's admin token. It is kept in this tab only and sent to this gateway alone.</p>
    ${error ? html`<div class="alert error" role="alert">${error}</div>` : null}
    <form method="post" onSubmit=${submit} autocomplete="off">
      <label class="field"><span>Admin token</span>
        <input name="token" type="password" placeholder="sk-…" autofocus spellcheck="false" aria-label="Admin token" /></label>
      <button class="primary" type="submit" disabled=${busy}>${busy ? 'Checking…' : 'Sign in'}</button>
    </form>
  </div></div>`;
}

function App() {
  const [signedIn, setSignedIn] = useState(Boolean(token.get()));
  const [reason, setReason] = useState(null);
  const [page, setPage] = useState(route());
  useEffect(() => {
    const on = () => setPage(route());
    addEventListener('hashchange', on);
    whenUnauthorized((e) => {
      token.clear();
      setReason(`Signed out: the admin token is no longer accepted (${e.message}).`);
      setSignedIn(false);
    });
    return () => removeEventListener('hashchange', on);
  }, []);
  useEffect(() => {
    document.title = `${PAGES.find(([p]) => p === page)[1]} · gw console`;
  }, [page]);

  if (!signedIn)
    return html`<${SignIn} reason=${reason} onDone=${() => {
      setReason(null);
      setSignedIn(true);
    }} />`;
  const Page = PAGES.find(([p]) => p === page)[2];
  const signOut = () => {
    token.clear();
    setReason(null);
    setSignedIn(false);
  };
  return html`<header class="top">
      <a class="brand" href="#/overview"><img src="/ui/icon.svg" alt="" />gw <small>console</small></a>
      <${Tabs} page=${page} />
      <div class="right"><button class="small" onClick=${signOut}>Sign out</button></div>
    </header>
    <main><${Page} key=${page} /></main>`;
}

render(html`<${App} />`, document.getElementById('app'));
