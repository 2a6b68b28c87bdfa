/** A format's model routes for the request's key: only what it may call (lib/model-listing.ts). */
import type { Context } from 'koa';
import type { GwState } from '../core/pipeline/state.ts';
import { findModel, type ModelEntry, modelListing } from '../lib/model-listing.ts';

/** {@link modelListing} for the request's key: what a format's `GET …/models` lists. */
export function modelsFor(ctx: Context): ModelEntry[] {
  const { snap, key } = ctx.state as GwState;
  return modelListing(snap.table, key);
}

/** {@link findModel} for the request's key: what a format's `GET …/models/{id}` answers; undefined → its 404. */
export function modelFor(ctx: Context, id: string): ModelEntry | undefined {
  const { snap, key } = ctx.state as GwState;
  return findModel(snap.table, key, id);
}

/** Served names close to `id` that the request's key may call, for a 404's hint (`MODEL_NOT_FOUND`'s `near`). */
export function nearModels(ctx: Context, id: string): string[] {
  const { snap, key } = ctx.state as GwState;
  return snap.table.closeMatches(id, key?.models === undefined ? undefined : key.allows);
}
