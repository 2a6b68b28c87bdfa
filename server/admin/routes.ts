/**
 * The admin API (docs/design.md "Routes", "Runtime changes"): providers and keys created or
 * removed at runtime, the model list with provider names, and config reload. The admin
 * token is checked by the core before any of these run; errors are in the OpenAI shape.
 *
 *   GET    /v1/admin/providers         list, api keys masked; stored ones gw cannot load marked unreadable
 *   POST   /v1/admin/providers         create → 201 listing (models discovered when absent)
 *   DELETE /v1/admin/providers/{name}  204; 409 when the config file defines it
 *   GET    /v1/admin/keys              list by the secrets' first characters, with their settings; stored ones gw cannot load marked unreadable
 *   POST   /v1/admin/keys              create with settings → 201 listing + `key`: the secret, shown once
 *   PATCH  /v1/admin/keys/{name}       change settings (JSON merge patch), secret unchanged → 200 listing
 *   POST   /v1/admin/keys/{name}/rotate  new secret → 200 {name, source, key, previous_key_valid_until};
 *                                      optional body {grace_seconds}
 *   DELETE /v1/admin/keys/{name}       204
 *   (a key the config file defines: PATCH, rotate and DELETE answer 409, edit the file)
 *   GET    /v1/admin/models            every model and alias with the providers serving it
 *   POST   /v1/admin/reload            re-read the config file → 200 report, 400 ConfigError
 */
import type { Context } from 'koa';
import { CONFIG_INVALID } from '../errors.ts';
import { UserError } from '../../lib/user-error.ts';
import type { Logger } from 'pino';
import type { GwState } from '../../core/pipeline/state.ts';
import { OPENAI_ERRORS } from '../../lib/http/routes.ts';
import type { RouteRegistry, RouteSpec } from '../../lib/http/routes.ts';
import { modelListing } from '../../lib/model-listing.ts';
import { priceViews } from '../../lib/pricing/listing.ts';
import type { ProviderInput } from '../runtime/provider-admin.ts';
import type { Runtime } from '../runtime/runtime.ts';
import { parseBody, validate } from '../../lib/schemas.ts';
import { keyCreateSchema, keyPatchSchema, keyRotateSchema, providerCreateSchema } from './schemas.ts';

/** Mounts the admin API on the gateway's route registry; `runtime` carries out the changes. */
export function mountAdminRoutes(routes: RouteRegistry, runtime: () => Runtime, log: Logger): void {
  const add = (method: RouteSpec['method'], path: string, handler: RouteSpec['handler'], body: RouteSpec['body'] = false) =>
    routes.add({ method, path, auth: 'admin', errors: OPENAI_ERRORS, body, handler, owner: 'admin API' });

  add('GET', '/v1/admin/providers', (ctx) => {
    sendJson(ctx, 200, { object: 'list', data: runtime().providers.list() });
  });
  add(
    'POST',
    '/v1/admin/providers',
    async (ctx) => {
      const input = parsed(ctx);
      const invalid = validate(providerCreateSchema, input);
      if (invalid) throw invalid;
      sendJson(ctx, 201, await runtime().providers.create(input as ProviderInput));
    },
    true,
  );
  add('DELETE', '/v1/admin/providers/:name', async (ctx) => {
    await runtime().providers.delete(ctx.params.name!);
    ctx.status = 204;
  });
  add('GET', '/v1/admin/keys', (ctx) => {
    sendJson(ctx, 200, { object: 'list', data: runtime().keys.list() });
  });
  add(
    'POST',
    '/v1/admin/keys',
    async (ctx) => {
      sendJson(ctx, 201, await runtime().keys.create(parseBody(keyCreateSchema, parsed(ctx))));
    },
    true,
  );
  add(
    'PATCH',
    '/v1/admin/keys/:name',
    async (ctx) => {
      sendJson(ctx, 200, await runtime().keys.update(ctx.params.name!, parseBody(keyPatchSchema, parsed(ctx))));
    },
    true,
  );
  add(
    'POST',
    '/v1/admin/keys/:name/rotate',
    async (ctx) => {
      const { grace_seconds } = parseBody(keyRotateSchema, (ctx.state as GwState).body?.body ?? {});
      sendJson(ctx, 200, await runtime().keys.rotate(ctx.params.name!, grace_seconds ?? 0));
    },
    'optional',
  );
  add('DELETE', '/v1/admin/keys/:name', async (ctx) => {
    await runtime().keys.revoke(ctx.params.name!);
    ctx.status = 204;
  });
  add('GET', '/v1/admin/models', (ctx) => {
    const snap = (ctx.state as GwState).snap;
    const data = modelListing(snap.table, undefined);
    // which price applies at each provider, and from where: an alias is priced as its target
    const now = Date.now();
    for (const m of data) {
      const model = m.alias_for ?? m.id;
      m.prices = priceViews(snap.prices, model, snap.table.find(model)?.members.map((x) => x.provider.name) ?? [], now);
    }
    sendJson(ctx, 200, { object: 'list', data });
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
