/**
 * What every Gemini route reads from a request before admitting it: the model from the URL
 * and the body the pipeline carries (the parsed body, `bodyOf` from gw/plugin, with that
 * model in it).
 */
import type { RequestContext } from 'gw/plugin';
import type { Context } from 'koa';

/** Format id: the key of `Provider.native` and of the onChunk chunk type. */
export const FORMAT = 'gemini';

/** The model of a `models/{model}:{method}` or `models/{model}` URL, decoded by the router. */
export function urlModel(ctx: Context): string {
  return ctx.params.model ?? '';
}

/**
 * The body the pipeline carries: the client's with the URL's model as `model`, where the core
 * resolves aliases and re-targets fallbacks as on every other route. The client's bytes still
 * go upstream unchanged when nothing changed (`call.rawBody`); `model` is never sent to a
 * Gemini upstream (the kit's geminiPassthrough), and translators ignore it.
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
