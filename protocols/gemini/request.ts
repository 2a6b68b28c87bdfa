/**
 * What every Gemini route reads from a request before admitting it: the model from the URL,
 * and the body the pipeline carries (the client's, with that model in it: aliases resolve and
 * fallbacks re-target as on every other route; `model` is never sent to a Gemini upstream).
 */
import type { Context } from 'koa';

/** The model of a `models/{model}:{method}` or `models/{model}` URL, decoded by the router. */
export function urlModel(ctx: Context): string {
  return ctx.params.model ?? '';
}

/** The body the pipeline carries: the client's with the URL's model as `model`. */
export function withModel(body: Record<string, unknown>, model: string): Record<string, unknown> {
  return { ...body, model };
}

/** A positive finite number, else undefined (facts must not carry junk from the body). */
export function positive(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : undefined;
}
