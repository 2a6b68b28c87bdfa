/**
 * The routes the core serves itself: liveness, metrics, the OpenAPI document and its UI.
 * (Client formats register theirs from plugins/formats/, the admin API from server/admin/.)
 */
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GatewayMetrics } from './metrics/metrics.ts';
import { openApiDocument } from './openapi.ts';
import { OPENAI_ERRORS, type RouteRegistry } from '../lib/http/routes.ts';

/** Mounts /health, /metrics, /openapi.json and /docs. */
export function mountCoreRoutes(routes: RouteRegistry, metrics: GatewayMetrics): void {
  const add = (method: 'GET', path: string, auth: 'none' | 'admin', handler: Parameters<typeof routes.add>[0]['handler']) =>
    routes.add({ method, path, auth, errors: OPENAI_ERRORS, handler, owner: 'core' });
  add('GET', '/health', 'none', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  add('GET', '/metrics', 'admin', async (ctx) => {
    const text = await metrics.scrape();
    ctx.type = 'text/plain; version=0.0.4; charset=utf-8';
    ctx.body = text;
  });
  let doc: string | undefined;
  add('GET', '/openapi.json', 'none', (ctx) => {
    ctx.type = 'application/json';
    ctx.body = doc ??= openApiDocument(routes);
  });
  const dist = join(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'), '..');
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>gw API</title><link rel="stylesheet" href="/docs/swagger-ui.css"></head>
<body><div id="swagger-ui"></div><script src="/docs/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui' });</script></body></html>`;
  const types: Record<string, string> = { 'swagger-ui.css': 'text/css', 'swagger-ui-bundle.js': 'application/javascript' };
  const assets = new Map<string, [string, Buffer]>();
  add('GET', '/docs', 'none', (ctx) => {
    ctx.type = 'text/html';
    ctx.body = html;
  });
  add('GET', '/docs/:file', 'none', (ctx) => {
    const file = ctx.params.file!;
    const type = types[file];
    if (!type) return;
    let a = assets.get(file);
    if (!a) assets.set(file, (a = [type, readFileSync(join(dist, file))]));
    ctx.type = a[0];
    ctx.set('cache-control', 'public, max-age=86400');
    ctx.body = a[1];
  });
}
