/**
 * /ui, the operator console (docs/console.md): `ui/` served as is and preact, htm and uPlot
 * from node_modules, under a CSP of this origin only. The page holds no secret.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Context } from 'koa';
import { PACKAGE_ROOT } from '../lib/package-info.ts';
import { OPENAI_ERRORS } from '../lib/http/routes.ts';
import type { RouteRegistry } from '../lib/http/routes.ts';

/** `ui/` at the package root (the same from the sources and from dist/). */
const UI_DIR = fileURLToPath(new URL('ui/', PACKAGE_ROOT));

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.html': 'text/html; charset=utf-8',
};

/** Vendor files: served name → [package, path inside it]. */
const VENDOR: Record<string, [string, string]> = {
  'preact.mjs': ['preact', 'dist/preact.mjs'],
  'hooks.mjs': ['preact', 'hooks/dist/hooks.mjs'],
  'htm.mjs': ['htm', 'dist/htm.mjs'],
  'uPlot.iife.min.js': ['uplot', 'dist/uPlot.iife.min.js'],
  'uPlot.min.css': ['uplot', 'dist/uPlot.min.css'],
};

const typeOf = (file: string): string | undefined => TYPES[file.slice(file.lastIndexOf('.'))];

/** The page's CSP: this origin only, the inline import map by its hash. */
function contentSecurityPolicy(html: string): string {
  const m = /<script type="importmap">([\s\S]*?)<\/script>/.exec(html);
  const hash = m ? ` 'sha256-${createHash('sha256').update(m[1]!).digest('base64')}'` : '';
  return `default-src 'self'; script-src 'self'${hash}; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'`;
}

/** An installed package's folder (found on the resolution paths: `exports` may hide package.json). @throws when not installed. */
function packageDir(name: string): string {
  for (const dir of createRequire(import.meta.url).resolve.paths(name) ?? []) {
    if (existsSync(join(dir, name, 'package.json'))) return join(dir, name);
  }
  throw new Error(`/ui needs the npm package ${name}: run npm ci`);
}

/** Mounts /ui on the gateway's routes (no auth: the page holds no secret). Files are read once, on first request. */
export function mountUi(routes: RouteRegistry): void {
  const get = (path: string, handler: (ctx: Context) => void) => routes.add({ method: 'GET', path, auth: 'none', errors: OPENAI_ERRORS, handler, owner: 'ui' });
  const vendor = new Map(Object.entries(VENDOR).map(([file, [pkg, path]]) => [file, join(packageDir(pkg), path)]));
  const own = new Set(readdirSync(UI_DIR).filter((f) => typeOf(f) && f !== 'index.html'));
  const cache = new Map<string, Buffer>();
  const read = (key: string, path: string): Buffer => {
    let b = cache.get(key);
    if (!b) cache.set(key, (b = readFileSync(path)));
    return b;
  };
  let csp: string | undefined;

  // the router matches /ui and /ui/ alike: relative asset paths need the slash
  get('/ui', (ctx) => {
    if (!ctx.path.endsWith('/')) return ctx.redirect('/ui/');
    const html = read('index.html', join(UI_DIR, 'index.html'));
    csp ??= contentSecurityPolicy(html.toString('utf8'));
    ctx.set({ 'content-security-policy': csp, 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer', 'cache-control': 'no-cache' });
    ctx.type = TYPES['.html']!;
    ctx.body = html;
  });
  get('/ui/vendor/:file', (ctx) => {
    const path = vendor.get(ctx.params.file!);
    if (!path) return;
    ctx.set({ 'x-content-type-options': 'nosniff', 'cache-control': 'public, max-age=86400' });
    ctx.type = typeOf(ctx.params.file!)!;
    ctx.body = read(`vendor/${ctx.params.file}`, path);
  });
  get('/ui/:file', (ctx) => {
    const file = ctx.params.file!;
    if (!own.has(file)) return;
    ctx.set({ 'x-content-type-options': 'nosniff', 'cache-control': 'no-cache' });
    ctx.type = typeOf(file)!;
    ctx.body = read(file, join(UI_DIR, file));
  });
}
