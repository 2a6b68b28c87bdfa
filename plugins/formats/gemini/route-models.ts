/**
 * GET models and models/{model} in Gemini's shape: every routable model and alias (the same
 * list as GET /v1/models), paged as Google pages (`pageSize`, `pageToken`). Under `/v1/` the
 * paths are OpenAI's, so these answer only requests from Gemini clients ({@link fromGeminiClient}).
 * @see Gemini API reference: Models
 */
import { errors } from 'gw/plugin';
import { modelFor, modelsFor, nearModels } from 'gw/plugin/format';
import type { Context } from 'koa';
import { gemini } from 'gw/plugin/gemini';

/** `key=` as a query parameter (whatever its position). */
const QUERY_KEY = /(?:^|&)key=/;

/**
 * True when the request comes from a Gemini client: it sends `x-goog-api-key` or `?key=` (the
 * Gemini API's auth) or `x-goog-api-client` (@google/genai and Gemini CLI always do, even with
 * a bearer token). OpenAI and Anthropic clients send none of these.
 */
export function fromGeminiClient(ctx: Context): boolean {
  return ctx.get('x-goog-api-key') !== '' || ctx.get('x-goog-api-client') !== '' || QUERY_KEY.test(ctx.querystring);
}

/** GET models: one page (`pageSize` default 50, ≤ 1000; `nextPageToken` while more remain). */
export function listModels(ctx: Context): void {
  ctx.type = 'application/json';
  ctx.body = JSON.stringify(gemini.client.models.list(modelsFor(ctx), ctx.query));
}

/** GET models/{model}; 404 NOT_FOUND (with close matches) for a model gw does not serve. */
export function getModel(ctx: Context): void {
  const id = (ctx.params.model ?? ctx.params.id ?? '').replace(/^models\//, '');
  const model = modelFor(ctx, id);
  if (model === undefined) throw errors.MODEL_NOT_FOUND({ what: `'${id}'`, near: nearModels(ctx, id) });
  ctx.type = 'application/json';
  ctx.body = JSON.stringify(gemini.client.models.one(model));
}
