/**
 * GET /v1/models and /v1/models/{id}: every routable model and alias the key may call, in
 * OpenAI's list format. `owned_by` names the providers serving it; aliases carry `alias_for`.
 * @see OpenAI API reference: Models
 */
import { errors } from 'gw/plugin';
import { modelFor, modelsFor, nearModels } from 'gw/plugin/format';
import { openaiChat } from 'gw/plugin/openai-chat';
import type { Context } from 'koa';

/** GET /v1/models: every model and alias the key may call. */
export function listModels(ctx: Context): void {
  ctx.type = 'application/json';
  ctx.body = JSON.stringify(openaiChat.client.models.list(modelsFor(ctx), ctx.query));
}

/**
 * One model (openai SDK `models.retrieve`); 404 `model_not_found` with close matches for a
 * model gw does not serve or the key may not call (the key cannot tell which).
 */
export function getModel(ctx: Context): void {
  const id = ctx.params.id!;
  const m = modelFor(ctx, id);
  if (!m) throw errors.MODEL_NOT_FOUND({ what: `'${id}'`, near: nearModels(ctx, id) });
  ctx.type = 'application/json';
  ctx.body = JSON.stringify(openaiChat.client.models.one(m));
}
