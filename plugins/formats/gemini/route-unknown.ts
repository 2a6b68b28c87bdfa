/**
 * POST models/{model}:{method} for a method gw does not serve (`generateAnswer`,
 * `predict`, …) or a path without one: 404 in Google's shape naming it, rather than the
 * gateway's generic "no route".
 */
import { defineError, errors } from 'gw/plugin';
import type { Context } from 'koa';
import { splitModelMethod } from 'gw/plugin/gemini';

/** A `{model}:{method}` URL whose method gw does not serve. */
export const METHOD_NOT_SERVED = defineError<{ model: string; method: string }>(
  'method_not_served',
  404,
  (p) => `models/${p.model}:${p.method}: gw serves generateContent, streamGenerateContent, countTokens, embedContent and batchEmbedContents, not ${p.method}`,
);

/** Throws 404 naming the method (or the path when it names none). */
export function unknownMethod(ctx: Context): never {
  const target = splitModelMethod(ctx.params.model ?? ctx.params.id ?? '');
  if (target === undefined) throw errors.ROUTE_NOT_FOUND({ method: ctx.method, path: ctx.path });
  throw METHOD_NOT_SERVED(target);
}
