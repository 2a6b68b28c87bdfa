/**
 * Helpers for plugins (exported by the SDK, `gw/plugin`): who a request is accounted to,
 * whether its answer came from the upstream (not the cache, not a hook), whether its usage
 * is to be charged, which usage, and at which price: the usage extension, the budget, the
 * request log and metrics all charge through these, so they agree on every request.
 */
import type { RequestContext } from '../context.ts';
import type { Usage } from '../format/chat.ts';

/**
 * Account name of a gateway that runs open (no `[keys]`): every request shares it. Key
 * names cannot contain parentheses, so it never collides with a real key.
 */
export const OPEN_ACCOUNT = '(open)';

/** The key name a request is accounted to (never the secret). */
export function accountOf(rc: RequestContext): string {
  return rc.key?.name ?? OPEN_ACCOUNT;
}

/**
 * True when the upstream answered this request: not a cache hit, not an onRequest tap's
 * early response. Only such requests count for usage, spend and tokens.
 */
export function answeredUpstream(rc: RequestContext): boolean {
  return !rc.cacheHit && rc.provider !== undefined;
}

/**
 * True when a request's `rc.usage` is to be charged (usage, spend, token windows): the
 * upstream answered it (onResponse, status below 400), or it was a stream that ended early
 * after its first byte (onError with `rc.partial`: charged for what it streamed, maybe an
 * estimate, `rc.usageEstimated`). Cache hits, early responses and failures before the first
 * byte are not.
 */
export function chargeable(rc: RequestContext): boolean {
  return answeredUpstream(rc) && (rc.partial || rc.status < 400);
}

/**
 * The usage a request is charged, as every view counts it (the usage extension, the budget,
 * the request log, metrics): `rc.usage` when {@link chargeable} and the request generated
 * or embedded something (token counting costs nothing); undefined otherwise, even when an
 * upstream reported usage before the request failed (a stream whose upstream failed after
 * reporting its prompt but before gw's first byte counts nothing).
 */
export function chargedUsage(rc: RequestContext): Usage | undefined {
  return rc.operation !== 'count' && chargeable(rc) ? rc.usage : undefined;
}

/**
 * The price a request's usage is charged at, as every view prices it: the served model's
 * (a fallback's own), else the requested model's (canonical id), else the name the client
 * sent (an alias priced under its own name); undefined when none of them is priced.
 */
export function priceOf<P>(rc: RequestContext, pricing: Readonly<Record<string, P>>): P | undefined {
  return own(pricing, rc.servedModel) ?? own(pricing, rc.canonicalModel) ?? own(pricing, rc.model);
}

// a model id is the client's text: `constructor` must not find Object.prototype's
function own<P>(pricing: Readonly<Record<string, P>>, model: string): P | undefined {
  return Object.hasOwn(pricing, model) ? pricing[model] : undefined;
}
