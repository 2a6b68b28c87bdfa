/**
 * GET /v1/models and /v1/models/{id}: every routable model and alias the key may call, in
 * OpenAI's list format. `owned_by` names the providers serving it; aliases carry `alias_for`.
 * @see https://platform.openai.com/docs/api-reference/models
 */
import type { Context } from 'koa';
import { MODEL_NOT_FOUND } from '../../../core/error-codes.ts';
import type { GwState } from '../../../core/pipeline/state.ts';
import { findModel, modelListing } from '../../../core/routes/model-listing.ts';

export function listModels(ctx: Context): void {
  ctx.type = 'application/json';
  const st = ctx.state as GwState;
  ctx.body = JSON.stringify({ object: 'list', data: modelListing(st.snap.table, st.key) });
}

/**
 * One model (openai SDK `models.retrieve`); 404 `model_not_found` with close matches for a
 * model gw does not serve or the key may not call (the key cannot tell which).
 */
export function getModel(ctx: Context): void {
  const id = ctx.params.id!;
  const { snap, key } = ctx.state as GwState;
  const m = findModel(snap.table, key, id);
  if (!m) throw MODEL_NOT_FOUND({ what: `'${id}'`, near: snap.table.closeMatches(id, key?.models === undefined ? undefined : key.allows) });
  ctx.type = 'application/json';
  ctx.body = JSON.stringify(m);
}
