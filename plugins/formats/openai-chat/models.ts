/**
 * GET /v1/models and /v1/models/{id}: every routable model and alias in OpenAI's list
 * format. `owned_by` names the providers serving it; aliases carry `alias_for`.
 * @see https://platform.openai.com/docs/api-reference/models
 */
import type { Context } from 'koa';
import { MODEL_NOT_FOUND } from '../../../core/error-codes.ts';
import type { GwState } from '../../../core/pipeline/state.ts';
import { modelListing } from '../../../core/routes/model-listing.ts';

export function listModels(ctx: Context): void {
  ctx.type = 'application/json';
  ctx.body = JSON.stringify({ object: 'list', data: modelListing((ctx.state as GwState).snap.table) });
}

/** One model (openai SDK `models.retrieve`); 404 `model_not_found` with close matches. */
export function getModel(ctx: Context): void {
  const id = ctx.params.id!;
  const table = (ctx.state as GwState).snap.table;
  const m = modelListing(table).find((x) => x.id === id);
  if (!m) throw MODEL_NOT_FOUND({ what: `'${id}'`, near: table.closeMatches(id) });
  ctx.type = 'application/json';
  ctx.body = JSON.stringify(m);
}
