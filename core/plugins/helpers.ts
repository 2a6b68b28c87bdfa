/**
 * Helpers for plugins (exported by the SDK, `gw/plugin`): who a request is accounted to,
 * and whether its answer came from the upstream (not the cache, not a hook).
 */
import type { RequestContext } from '../context.ts';

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
