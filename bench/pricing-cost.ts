/**
 * The cost function's time per request (issue 25's aim: at most 2 µs), in process: what the
 * pipeline does once per request when its usage is final (core/pipeline/charge.ts): the price
 * lookup for (provider, served model) in the snapshot's book (a remembered hit), then
 * `costOf` on the request's usage (cache reads and writes, reasoning). Prices from the
 * bundled table: a flat one (gpt-4o), a tiered and dated one (claude-sonnet-4-6), a
 * four-tier one (qwen3-coder-plus); usages below and above the tier boundaries.
 *
 * Part of `npm run bench` (`--only pricing-cost` alone), and runnable by itself:
 * `node --conditions=gw-source bench/pricing-cost.ts`. Knob (env): PRICING_BENCH_CALLS
 * (calls per repeat, default 1,000,000; the best of 5 repeats is reported).
 */
import { fileURLToPath } from 'node:url';
import type { Usage } from '../lib/common/chat.ts';
import { PriceBook } from '../lib/pricing/book.ts';
import { costOf } from '../lib/pricing/cost.ts';
import { bundledPrices } from '../server/pricing/bundled.ts';

/** The name `--only` and the results use. */
export const PRICING_COST = 'pricing-cost';

export interface PricingCostResult {
  calls: number;
  /** Lookup + cost, µs per call (best of the repeats). */
  usPerCall: number;
  /** `costOf` alone, µs per call. */
  usPerCostOf: number;
}

const usage = (prompt: number, cached: number, writes: number, completion: number, reasoning: number): Usage => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: prompt + completion,
  prompt_tokens_details: { cached_tokens: cached, cache_write_tokens: writes },
  completion_tokens_details: { reasoning_tokens: reasoning },
});

const CASES: Array<[provider: string, model: string, u: Usage]> = [
  ['oai', 'gpt-4o', usage(10_000, 8000, 0, 300, 0)],
  ['ant', 'claude-sonnet-4-6', usage(48_000, 40_000, 6000, 900, 400)],
  ['ant', 'claude-sonnet-4-6', usage(260_000, 240_000, 10_000, 2000, 0)],
  ['ds', 'qwen3-coder-plus', usage(140_000, 120_000, 0, 1500, 0)],
];

/** Sum of every cost, so the work cannot be optimized away. */
let sink = 0;

/** Measures `calls` lookups + costs per repeat, best of `repeats`. */
export function measurePricingCost(calls = Number(process.env.PRICING_BENCH_CALLS ?? 1_000_000), repeats = 5): PricingCostResult {
  const book = new PriceBook(
    new Map(),
    [
      { name: 'oai', priceKind: 'openai', pricing: new Map() },
      { name: 'ant', priceKind: 'anthropic', pricing: new Map() },
      { name: 'ds', priceKind: 'dashscope', pricing: new Map() },
    ],
    bundledPrices(),
  );
  const at = Date.now();
  const n = CASES.length;
  const prices = CASES.map(([p, m]) => book.priceFor(p, m)!.price);
  let best = Number.POSITIVE_INFINITY;
  let bestCost = Number.POSITIVE_INFINITY;
  for (let r = 0; r < repeats; r++) {
    let t0 = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) {
      const c = CASES[i % n]!;
      const p = book.priceFor(c[0], c[1], c[1], c[1]);
      if (p) sink += costOf(p.price, c[2], at).total;
    }
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e3 / calls);
    t0 = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) sink += costOf(prices[i % n]!, CASES[i % n]![2], at).total;
    bestCost = Math.min(bestCost, Number(process.hrtime.bigint() - t0) / 1e3 / calls);
  }
  return { calls, usPerCall: best, usPerCostOf: bestCost };
}

/** The readable line. */
export function formatPricingCost(r: PricingCostResult): string {
  return `${PRICING_COST} — a request's price lookup + cost (lib/pricing), in process, best of 5 x ${r.calls} calls: ${r.usPerCall.toFixed(3)} µs/call (costOf alone ${r.usPerCostOf.toFixed(3)} µs)\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdout.write(`node ${process.version}\n${formatPricingCost(measurePricingCost())}(sink ${sink.toFixed(2)})\n`);
}
