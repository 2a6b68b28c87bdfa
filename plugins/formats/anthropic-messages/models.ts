/**
 * The model list in Anthropic's shape, for Anthropic clients that list models through gw
 * (`GET /v1/models` and `/v1/models/{id}` with an `anthropic-version` header).
 * @see https://docs.anthropic.com/en/api/models-list
 */
import { errors } from 'gw/plugin';
import { type ModelEntry, modelFor, modelsFor } from 'gw/plugin/format';
import type { Context } from 'koa';

const EPOCH = '1970-01-01T00:00:00Z';

function entry(m: ModelEntry): Record<string, unknown> {
  return { type: 'model', id: m.id, display_name: m.id, created_at: EPOCH };
}

/** True when the request comes from an Anthropic client. */
export function fromAnthropicClient(ctx: Context): boolean {
  return ctx.get('anthropic-version') !== '';
}

/** GET /v1/models, Anthropic's page shape (one page: every model the key may call). */
export function listModels(ctx: Context): void {
  const data = modelsFor(ctx).map(entry);
  ctx.type = 'application/json';
  ctx.body = JSON.stringify({ data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null });
}

/** GET /v1/models/{id}, Anthropic's shape; 404 `not_found_error` for a model gw does not serve or the key may not call. */
export function getModel(ctx: Context): void {
  const id = ctx.params.id!;
  const m = modelFor(ctx, id);
  if (!m) throw errors.MODEL_NOT_FOUND({ what: `'${id}'`, near: [] });
  ctx.type = 'application/json';
  ctx.body = JSON.stringify(entry(m));
}
