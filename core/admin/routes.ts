/**
 * The admin API (DESIGN.md "Routes", "Runtime changes"): providers and keys created or
 * removed at runtime, the model list with provider names, and config reload. The admin
 * token is checked by the `admin` middleware of core/app.ts before any of these run.
 *
 *   GET    /v1/admin/providers         list, api keys masked
 *   POST   /v1/admin/providers         create → 201 listing (models discovered when absent)
 *   DELETE /v1/admin/providers/{name}  204; 409 when the config file defines it
 *   GET    /v1/admin/keys              list, keys masked
 *   POST   /v1/admin/keys              create → 201 {name, source, key}: the key, shown once
 *   DELETE /v1/admin/keys/{name}       204; 409 when the config file defines it
 *   GET    /v1/admin/models            as GET /v1/models, for the admin token (gw models)
 *   POST   /v1/admin/reload            re-read the config file → 200 report, 400 ConfigError
 */
import type { Context, Middleware } from 'koa';
import type { Router } from '@koa/router';
import { GatewayError } from '../errors.ts';
import type { Gateway } from '../gateway.ts';
import { modelsRoute } from '../routes/models.ts';
import type { GwState } from '../routes/admit.ts';
import type { ProviderInput } from '../runtime/runtime.ts';
import { validate } from '../schemas.ts';
import { keyCreateSchema, providerCreateSchema } from './schemas.ts';

/** Middleware the app already has: admin-token auth and JSON body parsing (415/413/400). */
export interface AdminMiddleware {
  admin: Middleware;
  body: Middleware;
}

/** Mounts the admin API on `router`. */
export function mountAdminRoutes(router: Router, mw: AdminMiddleware, ref: () => Gateway): void {
  const { admin, body } = mw;
  router.get('/v1/admin/providers', admin, (ctx) => {
    sendJson(ctx, 200, { object: 'list', data: ref().runtime.listProviders() });
  });
  router.post('/v1/admin/providers', admin, body, async (ctx) => {
    const input = parsed(ctx);
    const invalid = validate(providerCreateSchema, input);
    if (invalid) throw invalid;
    sendJson(ctx, 201, await ref().runtime.createProvider(input as ProviderInput));
  });
  router.delete('/v1/admin/providers/:name', admin, async (ctx) => {
    await ref().runtime.deleteProvider(ctx.params.name!);
    ctx.status = 204;
  });
  router.get('/v1/admin/keys', admin, (ctx) => {
    sendJson(ctx, 200, { object: 'list', data: ref().runtime.listKeys() });
  });
  router.post('/v1/admin/keys', admin, body, async (ctx) => {
    const input = parsed(ctx);
    const invalid = validate(keyCreateSchema, input);
    if (invalid) throw invalid;
    sendJson(ctx, 201, await ref().runtime.createKey(input.name as string));
  });
  router.delete('/v1/admin/keys/:name', admin, async (ctx) => {
    await ref().runtime.revokeKey(ctx.params.name!);
    ctx.status = 204;
  });
  router.get('/v1/admin/models', admin, modelsRoute(ref));
  router.post('/v1/admin/reload', admin, async (ctx) => {
    const gw = ref();
    try {
      sendJson(ctx, 200, { reloaded: true, ...(await gw.runtime.reload()) });
    } catch (err) {
      if ((err as Error).name !== 'ConfigError' && (err as Error).name !== 'PluginError') throw err;
      gw.log.error({ err: (err as Error).message }, 'reload refused; the running config is kept');
      throw new GatewayError(400, `reload refused, the running config is kept: ${(err as Error).message}`, { code: 'config_invalid' });
    }
  });
}

function parsed(ctx: Context): Record<string, unknown> {
  return (ctx.state as GwState).body!.body;
}

function sendJson(ctx: Context, status: number, value: unknown): void {
  ctx.status = status;
  ctx.type = 'application/json';
  ctx.body = JSON.stringify(value);
}
