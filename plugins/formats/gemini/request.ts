/**
 * What every Gemini route reads from a request before admitting it: the model from the URL,
 * the parsed body, and the body the pipeline carries (with that model in it).
 */
import type { Context } from 'koa';
import type { RequestContext } from '../../../core/context.ts';
import type { GwState } from '../../../core/pipeline/state.ts';

/** Format id: the key of `Provider.native` and of the onChunk chunk type. */
export const FORMAT = 'gemini';

/** The model of a `models/{model}:{method}` or `models/{model}` URL, decoded by the router. */
export function urlModel(ctx: Context): string {
  return ctx.params.model ?? '';
}

/** The parsed JSON body (routes registered with `body: true`). */
export function bodyOf(ctx: Context): Record<string, unknown> {
  return (ctx.state as GwState).body?.body ?? {};
}

/**
 * The body the pipeline carries: the client's with the URL's model as `model`, where the core
 * resolves aliases and re-targets fallbacks as on every other route. The client's bytes still
 * go upstream unchanged when nothing changed (`call.rawBody`); `model` is never sent to a
 * Gemini upstream (passthrough.ts), and translators ignore it.
 */
export function withModel(body: Record<string, unknown>, model: string): Record<string, unknown> {
  return { ...body, model };
}

/** A positive finite number, else undefined (facts must not carry junk from the body). */
export function positive(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : undefined;
}

/** Logs at debug what a translation dropped (Gemini-only fields), one line per request. */
export function logDropped(rc: RequestContext, provider: string, warnings: string[]): void {
  if (warnings.length > 0 && rc.log.isLevelEnabled('debug')) rc.log.debug({ req: rc.id, provider, warnings }, 'Gemini fields dropped in translation');
}
