/**
 * GET /v1/models and /v1/models/{id} in Anthropic's shape, for Anthropic clients that list
 * models through gw (they send `anthropic-version`).
 * @see Anthropic API: List Models
 */
import { errors } from 'gw/plugin';
import { anthropicMessages } from 'gw/plugin/anthropic-messages';
import { modelFor, modelsFor } from 'gw/plugin/format';
import type { Context } from 'koa';

/** True when the request comes from an Anthropic client. */
export function fromAnthropicClient(ctx: Context): boolean {
  return ctx.get('anthropic-version') !== '';
}

/** GET /v1/models: one page, every model the key may call. */
export function listModels(ctx: Context): void {
  ctx.type = 'application/json';
  ctx.body = JSON.stringify(anthropicMessages.client.models.list(modelsFor(ctx), ctx.query));
}

/** GET /v1/models/{id}; 404 `not_found_error` for a model gw does not serve or the key may not call. */
export function getModel(ctx: Context): void {
  const id = ctx.params.id!;
  const m = modelFor(ctx, id);
  if (!m) throw errors.MODEL_NOT_FOUND({ what: `'${id}'`, near: [] });
  ctx.type = 'application/json';
  ctx.body = JSON.stringify(anthropicMessages.client.models.one(m));
}
