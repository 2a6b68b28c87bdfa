/**
 * A request's cost in USD, as the request log and the budget charge it: the charged usage
 * (`chargedUsage`) at the request's price (`priceOf`), rounded to 1e-9 USD like
 * `/v1/requests`' `cost_usd`. The one place the otel extension prices anything, so a change
 * of gw's cost rule is one line here.
 */
import { chargedUsage, type Price, priceOf, type RequestContext } from 'gw/plugin';

/** USD the request was charged; undefined when it was charged nothing or its model is unpriced. */
export function costOf(rc: RequestContext, pricing: Readonly<Record<string, Price>>): number | undefined {
  const u = chargedUsage(rc);
  if (u === undefined) return undefined;
  const price = priceOf(rc, pricing);
  if (price === undefined) return undefined;
  const usd = (tokens(u.prompt_tokens) * price.input_per_mtok + tokens(u.completion_tokens) * price.output_per_mtok) / 1e6;
  return Math.round(usd * 1e9) / 1e9;
}

function tokens(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0;
}
