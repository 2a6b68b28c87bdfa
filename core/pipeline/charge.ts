/**
 * The one place a request's cost is computed: once, when its usage is final (an answer,
 * a whole stream, a stream that ended early and is charged), before onResponse/onError,
 * so every consumer (the budget's settlement, the request log, usage series, metrics, the
 * answer's `x-gw-cost-usd`) reads the same `rc.cost`.
 */
import type { RequestContext } from '../context.ts';
import { chargedUsage } from '../plugins/helpers.ts';
import type { Snapshot } from '../snapshot.ts';
import { costOf } from '../../lib/pricing/cost.ts';

/**
 * Sets `rc.price` and `rc.cost` from the request's charged usage (`chargedUsage`): the cost
 * at the price of the provider and model that served it (else the dearest another provider
 * of the model has: PriceBook.charged), or null when nothing prices it. Leaves both
 * undefined when nothing is charged (a cache hit, a failure, a token count).
 * @param at epoch ms: the dated price in force then applies.
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
