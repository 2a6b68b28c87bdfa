/**
 * Who a request is accounted to and which usage it is charged: the usage extension, the
 * budget, the request log and metrics all charge through these, so they agree (`gw/plugin`).
 */
import type { RequestContext } from '../context.ts';
import type { Usage } from '../../lib/common/chat.ts';

/** The account of a gateway running open (no `[keys]`); no key name holds parentheses. */
export const OPEN_ACCOUNT = '(open)';

/** The key name a request is accounted to (never the secret). */
export function accountOf(rc: RequestContext): string {
  return rc.key?.name ?? OPEN_ACCOUNT;
}

/** True when the upstream answered (not the cache, not an onRequest tap): only those count. */
export function answeredUpstream(rc: RequestContext): boolean {
  return !rc.cacheHit && rc.provider !== undefined;
}

/** True when `rc.usage` is charged: an upstream answer (status below 400), a stream that ended early after its first byte, or an answer onAnswer refused (`rc.partial`). */
export function chargeable(rc: RequestContext): boolean {
  return answeredUpstream(rc) && (rc.partial || rc.status < 400);
}

/** The usage a request is charged, as every view counts it: `rc.usage` when {@link chargeable} and not a token count; else undefined. */
export function chargedUsage(rc: RequestContext): Usage | undefined {
  return rc.operation !== 'count' && chargeable(rc) ? rc.usage : undefined;
}
