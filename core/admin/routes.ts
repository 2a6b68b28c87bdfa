/**
 * The admin API (docs/design.md "Routes", "Runtime changes"): providers and keys created or
 * removed at runtime, the model list with provider names, and config reload. The admin
 * token is checked by the core before any of these run; errors are in the OpenAI shape.
 *
 *   GET    /v1/admin/providers         list, api keys masked
 *   POST   /v1/admin/providers         create → 201 listing (models discovered when absent)
 *   DELETE /v1/admin/providers/{name}  204; 409 when the config file defines it
 *   GET    /v1/admin/keys              list, keys masked
 *   POST   /v1/admin/keys              create → 201 {name, source, key}: the key, shown once
 *   DELETE /v1/admin/keys/{name}       204; 409 when the config file defines it
 *   GET    /v1/admin/models            every model and alias with the providers serving it
 *   POST   /v1/admin/reload            re-read the config file → 200 report, 400 ConfigError
 */
import type { Context } from 'koa';
import { CONFIG_INVALID } from '../error-codes.ts';
import { UserError } from '../errors.ts';
import type { Logger } from 'pino';
import type { GwState } from '../pipeline/state.ts';
import { OPENAI_ERRORS } from '../routes/core-routes.ts';
import type { RouteRegistry, RouteSpec } from '../routes/registry.ts';
import { modelListing } from '../routes/model-listing.ts';
import type { ProviderInput, Runtime } from '../runtime/runtime.ts';
import { validate } from '../schemas.ts';
import { keyCreateSchema, providerCreateSchema } from './schemas.ts';

/** Mounts the admin API on the gateway's route registry; `runtime` carries out the changes. */
export function mountAdminRoutes(routes: RouteRegistry, runtime: () => Runtime, log: Logger): void {
  const add = (method: RouteSpec['method'], path: string, handler: RouteSpec['handler'], body = false) =>
    routes.add({ method, path, auth: 'admin', errors: OPENAI_ERRORS, body, handler, owner: 'admin API' });

  add('GET', '/v1/admin/providers', (ctx) => {
    sendJson(ctx, 200, { object: 'list', data: runtime().listProviders() });
  });
  add('POST', '/v1/admin/providers', async (ctx) => {
    const input = parsed(ctx);
    const invalid = validate(providerCreateSchema, input);
    if (invalid) throw invalid;
    sendJson(ctx, 201, await runtime().createProvider(input as ProviderInput));
  }, true);
  add('DELETE', '/v1/admin/providers/:name', async (ctx) => {
    await runtime().deleteProvider(ctx.params.name!);
    ctx.status = 204;
  });
  add('GET', '/v1/admin/keys', (ctx) => {
    sendJson(ctx, 200, { object: 'list', data: runtime().listKeys() });
  });
  add('POST', '/v1/admin/keys', async (ctx) => {
    const input = parsed(ctx);
    const invalid = validate(keyCreateSchema, input);
    if (invalid) throw invalid;
    sendJson(ctx, 201, await runtime().createKey(input.name as string));
  }, true);
  add('DELETE', '/v1/admin/keys/:name', async (ctx) => {
    await runtime().revokeKey(ctx.params.name!);
    ctx.status = 204;
  });
  add('GET', '/v1/admin/models', (ctx) => {
    sendJson(ctx, 200, { object: 'list', data: modelListing((ctx.state as GwState).snap.table) });
  });
  add('POST', '/v1/admin/reload', async (ctx) => {
    try {
      sendJson(ctx, 200, { reloaded: true, ...(await runtime().reload()) });
    } catch (err) {
      if (!(err instanceof UserError)) throw err;
      log.error({ err: err.message }, 'reload refused; the running config is kept');
      throw CONFIG_INVALID(err.message);
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
