/** The one place a request's cost is computed: once its usage is final, before onResponse/onError, so every consumer reads the same `rc.cost`. */
import type { RequestContext } from '../context.ts';
import { chargedUsage } from '../plugins/helpers.ts';
import type { Snapshot } from '../snapshot.ts';
import { costOf } from '../../lib/pricing/cost.ts';

/**
 * Sets `rc.price` and `rc.cost` from the charged usage at the serving provider's price (else
 * the dearest of the model's: PriceBook.charged), null when unpriced; both undefined when
 * nothing is charged. @param at epoch ms: the dated price in force then applies.
 */
export function chargeCost(rc: RequestContext, snap: Snapshot, at: number): void {
  const u = chargedUsage(rc);
  if (u === undefined) return;
  const p = snap.prices.charged(rc.provider, rc.servedModel, rc.canonicalModel, rc.model, snap.table, u, at);
  rc.price = p;
  rc.cost = p === null ? null : costOf(p.price, u, at);
}

/** USD as text, to 1e-9 (the precision the request log keeps): `x-gw-cost-usd`, like LiteLLM's `x-litellm-response-cost`. */
export function usdText(usd: number): string {
  return String(Math.round(usd * 1e9) / 1e9);
}
