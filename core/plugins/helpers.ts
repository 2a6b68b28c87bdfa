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
