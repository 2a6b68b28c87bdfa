/**
 * The HTTP app: one error boundary, auth, body parsing and the routes. Small on purpose;
 * the work happens in routes/ and in plugins.
 */
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Koa, { type Context, type Next } from 'koa';
import { Router } from '@koa/router';
import { koaBody } from 'koa-body';
import type { RouteName } from './context.ts';
import { GatewayError } from './errors.ts';
import type { Gateway } from './gateway.ts';
import { bearer, tokenEquals } from './keys.ts';
import { openApiDocument } from './openapi.ts';
import type { GwState } from './routes/admit.ts';
import { chatRoute } from './routes/chat.ts';
import { embeddingsRoute } from './routes/embeddings.ts';
import { messagesRoute } from './routes/messages.ts';
import { modelsRoute } from './routes/models.ts';
import { mountAdminRoutes } from './admin/routes.ts';
import { asGatewayError, errorBody } from './routes/respond.ts';
import { notifyFinish } from './finish.ts';
import { mountUi } from './ui.ts';
import { notifyError } from './routes/stream.ts';

const UNPARSED = Symbol.for('unparsedBody');
const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** The gateway routes /metrics counts (POST); everything else (admin, models, scrapes) is not counted. */
const METERED: ReadonlyMap<string, RouteName> = new Map([['/v1/chat/completions', 'chat'], ['/v1/embeddings', 'embeddings'], ['/v1/messages', 'messages']]);

/** Builds the Koa app for a gateway. `gwRef()` returns the current gateway (swapped on reload). */
export function createApp(gwRef: () => Gateway): Koa {
  const app = new Koa({ proxy: false });
  app.silent = true;
  const initial = gwRef();
  const router = new Router();

  const parseJson = koaBody({
    json: true, urlencoded: false, text: false, multipart: false,
    jsonLimit: initial.config.max_body_bytes, jsonStrict: true, includeUnparsed: true, patchNode: false,
  });
  const body = async (ctx: Context, next: Next) => {
    if (!ctx.is('application/json', '+json')) {
      throw new GatewayError(415, `expected Content-Type: application/json, got ${ctx.get('content-type') || 'none'}`, { code: 'unsupported_media_type' });
    }
    try {
      await parseJson(ctx, async () => {
        const parsed = ctx.request.body as Record<string | symbol, unknown>;
        if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new GatewayError(400, 'request body must be a JSON object', { code: 'invalid_request_body' });
        (ctx.state as GwState).body = { body: parsed as Record<string, unknown>, raw: ((ctx.request as { rawBody?: string }).rawBody ?? parsed[UNPARSED]) as string }; // koa-body 8 keeps the bytes on ctx.request.rawBody
        delete parsed[UNPARSED];
      });
    } catch (err) {
      throw bodyParseError(err);
    }
    await next();
  };

  const gatewayKey = (allowXApiKey: boolean) => async (ctx: Context, next: Next) => {
    const gw = gwRef();
    const keys = gw.keys;
    if (!keys.open) {
      const token = bearer(ctx.get('authorization')) ?? (allowXApiKey ? ctx.get('x-api-key') || undefined : undefined);
      if (!token) throw new GatewayError(401, allowXApiKey ? 'missing gateway key: send Authorization: Bearer <key> or x-api-key: <key>' : 'missing gateway key: send Authorization: Bearer <key>', { code: 'missing_api_key' });
      const key = keys.lookup(token);
      if (!key) {
        const isAdmin = gw.config.admin_token !== undefined && tokenEquals(token, gw.config.admin_token);
        throw new GatewayError(401, isAdmin ? 'the admin token is not a gateway key; use a key from [keys] or gw keys create' : 'unknown gateway key', { code: 'invalid_api_key' });
      }
      (ctx.state as GwState).key = key;
    }
    await next();
  };

  const admin = async (ctx: Context, next: Next) => {
    const gw = gwRef();
    const token = bearer(ctx.get('authorization'));
    if (!token) throw new GatewayError(401, 'missing admin token: send Authorization: Bearer <admin_token>', { code: 'missing_api_key' });
    const expected = gw.config.admin_token;
    if (expected !== undefined && tokenEquals(token, expected)) return next();
    if (gw.keys.lookup(token)) throw new GatewayError(403, 'a gateway key cannot call admin routes; use the admin token', { code: 'admin_required' });
    throw new GatewayError(401, expected === undefined ? 'admin routes are disabled: no admin_token in the config' : 'invalid admin token', { code: 'invalid_api_key' });
  };

  router.post('/v1/chat/completions', gatewayKey(false), body, chatRoute(gwRef));
  router.post('/v1/embeddings', gatewayKey(false), body, embeddingsRoute(gwRef));
  router.post('/v1/messages', gatewayKey(true), body, messagesRoute(gwRef));
  router.get('/v1/models', gatewayKey(false), modelsRoute(gwRef));
  router.get('/health', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/metrics', admin, async (ctx) => {
    const text = await gwRef().metrics.scrape();
    ctx.type = 'text/plain; version=0.0.4; charset=utf-8';
    ctx.body = text;
  });
  router.get('/openapi.json', (ctx) => {
    ctx.type = 'application/json';
    ctx.body = openApiDocument();
  });
  mountDocs(router);
  mountUi(router);
  mountAdminRoutes(router, { admin, body }, gwRef);
  for (const r of initial.adminRoutes) {
    const m = r.method === 'GET' ? 'get' : r.method === 'POST' ? 'post' : 'delete';
    router[m](r.path, admin, r.handler);
  }

  app.use(async function boundary(ctx, next) {
    const gw = gwRef();
    const st = ctx.state as GwState;
    const incoming = ctx.get('x-request-id');
    st.id = incoming && SAFE_ID.test(incoming) ? incoming : randomUUID();
    st.startedAt = performance.now();
    st.log = gw.log;
    const info = gw.log.isLevelEnabled('info');
    if (info) gw.log.info({ req: st.id, method: ctx.method, path: ctx.path }, 'request');
    let failure: GatewayError | undefined;
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new GatewayError(404, `no route ${ctx.method} ${ctx.path}`, { code: 'route_not_found' });
      if (ctx.status === 405) throw new GatewayError(405, `method ${ctx.method} is not allowed on ${ctx.path}`, { code: 'method_not_allowed' });
    } catch (err) {
      const ge = asGatewayError(err);
      failure = ge;
      if (ge.status === 500) gw.log.error({ err, req: st.id }, 'internal error');
      if (st.rc) {
        st.rc.status = ge.status;
        await notifyError(gw, st.rc, ge);
      }
      if (!ctx.headerSent && ctx.writable) {
        ctx.status = ge.status;
        ctx.type = 'application/json';
        ctx.set('x-request-id', st.id);
        if (ge.headers) ctx.set(ge.headers);
        ctx.body = errorBody(ge, ctx.path.startsWith('/v1/messages'));
      }
    }
    // a stream's pump is awaited by its route: this runs after the last byte, streams included
    const route = ctx.method === 'POST' ? METERED.get(ctx.path) : undefined;
    if (route || info) {
      const rc = st.rc;
      const status = rc?.status || failure?.status || ctx.status;
      const ms = performance.now() - st.startedAt;
      if (route) {
        gw.metrics.request(route, rc, status, failure, ms);
        notifyFinish(gw.hooks, st, route, status, failure, ms);
      }
      if (info) gw.log.info({ req: st.id, status, ms: Math.round(ms * 100) / 100, model: rc?.model, provider: rc?.provider }, 'response');
    }
  });
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}

/**
 * koa-body's parse failures carry `status` 400 but neither `expose` nor a `type`, so they
 * would reach the boundary as 500s: malformed JSON, and (jsonStrict) a JSON value that is
 * not an object or array.
 */
function bodyParseError(err: unknown): unknown {
  if (err instanceof GatewayError) return err;
  const e = err as { status?: number; message?: string };
  if (e?.status !== 400) return err;
  if (e.message?.startsWith('invalid JSON, only supports')) return new GatewayError(400, 'request body must be a JSON object', { code: 'invalid_request_body' });
  return new GatewayError(400, `request body is not valid JSON: ${e.message}`, { code: 'invalid_json' });
}

/** /docs: Swagger UI from the swagger-ui-dist package (no CDN), pointed at /openapi.json. */
function mountDocs(router: Router): void {
  const dist = join(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'), '..');
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>gw API</title><link rel="stylesheet" href="/docs/swagger-ui.css"></head>
<body><div id="swagger-ui"></div><script src="/docs/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui' });</script></body></html>`;
  const types: Record<string, string> = { 'swagger-ui.css': 'text/css', 'swagger-ui-bundle.js': 'application/javascript' };
  const assets = new Map<string, [string, Buffer]>();
  router.get('/docs', (ctx) => {
    ctx.type = 'text/html';
    ctx.body = html;
  });
  router.get('/docs/:file', (ctx) => {
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
