/**
 * Which price applies to each routed model at each provider, and where it came from, as the
 * admin model list shows it (`GET /v1/admin/models`, `gw models`, the console's Models page):
 * the rates in force now, fallbacks applied, with the tiers above the base.
 */
import type { PriceBook, PriceSource } from './book.ts';
import type { TierRates } from './price.ts';

/** USD per million tokens of one tier, as the config names them. */
export interface RatesView {
  input_per_mtok: number;
  output_per_mtok: number;
  cache_read_per_mtok: number;
  cache_write_per_mtok: number;
  cache_write_1h_per_mtok: number;
  reasoning_per_mtok: number;
}

/** The price of a model at one provider; `source` null: no price anywhere (its cost is null). */
export interface PriceView extends Partial<RatesView> {
  provider: string;
  source: PriceSource | null;
  /** The `[pricing]` key, or the bundled table's `<provider>/<model id>`. */
  entry?: string;
  /** For `bundled`: the table and its version. */
  table?: string;
  /** Tiers above the base: from `above_tokens` prompt tokens, these rates for every token. */
  tiers?: Array<{ above_tokens: number } & RatesView>;
}

/**
 * The price views of `model` at each of `providers` (the providers serving it), at `at` (epoch ms).
 */
export function priceViews(book: PriceBook, model: string, providers: readonly string[], at: number): PriceView[] {
  return providers.map((provider) => {
    const p = book.priceFor(provider, model);
    if (p === null) return { provider, source: null };
    const periods = p.price.periods;
    let period = periods[0]!;
    for (const q of periods) if (at >= q.from) period = q;
    const view: PriceView = { provider, source: p.source, entry: p.entry, ...(p.table === undefined ? {} : { table: p.table }), ...rates(period.levels[0]!) };
    if (period.above.length) view.tiers = period.above.map((above, i) => ({ above_tokens: above, ...rates(period.levels[i + 1]!) }));
    return view;
  });
}

function rates(r: TierRates): RatesView {
  return {
    input_per_mtok: r.input,
    output_per_mtok: r.output,
    cache_read_per_mtok: r.cacheRead,
    cache_write_per_mtok: r.cacheWrite,
    cache_write_1h_per_mtok: r.cacheWrite1h,
    reasoning_per_mtok: r.reasoning,
  };
}
