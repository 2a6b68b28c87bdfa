/**
 * The price model (docs/design.md "Pricing"): USD per million tokens per usage part, tiered by
 * prompt size and dated; a `PriceSpec` compiled once into a `ModelPrice` cost.ts reads as is.
 */

/** A rate in USD per million tokens, flat, or tiered by the request's prompt size. */
export type Rate = number | { base: number; tiers: ReadonlyArray<{ start: number; price: number }> };

/** The parts of usage a price names; each may be tiered. */
export interface PartRates {
  /** Uncached input (prompt tokens that are neither cache reads nor cache writes). */
  input: Rate;
  /** Output, reasoning included unless `reasoning` prices it apart. */
  output: Rate;
  /** Cache reads; missing: the input rate (the vendor gives no discount). */
  cacheRead?: Rate;
  /** Cache writes at the default (5-minute) TTL; missing: the input rate. */
  cacheWrite?: Rate;
  /** Cache writes at the 1-hour TTL; missing: the `cacheWrite` rate. */
  cacheWrite1h?: Rate;
  /** Reasoning (thinking) output where it is priced apart; missing: the output rate. */
  reasoning?: Rate;
}

/** One model's price as written: rates from the start of time, then dated changes (`from`, epoch ms). */
export interface PriceSpec {
  rates: PartRates;
  changes?: ReadonlyArray<{ from: number; rates: PartRates }>;
}

/** The rates of one tier (USD per million tokens); fallbacks already applied. */
export class TierRates {
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  readonly cacheWrite1h: number;
  readonly reasoning: number;
  constructor(input: number, output: number, cacheRead: number, cacheWrite: number, cacheWrite1h: number, reasoning: number) {
    this.input = input;
    this.output = output;
    this.cacheRead = cacheRead;
    this.cacheWrite = cacheWrite;
    this.cacheWrite1h = cacheWrite1h;
    this.reasoning = reasoning;
  }
}

/** The rates in force from `from` (epoch ms): `levels[0]` up to `above[0]` prompt tokens, `levels[i]` above `above[i - 1]`. */
export class PricePeriod {
  readonly from: number;
  readonly above: readonly number[];
  readonly levels: readonly TierRates[];
  constructor(from: number, above: readonly number[], levels: readonly TierRates[]) {
    this.from = from;
    this.above = above;
    this.levels = levels;
  }
}

/** A compiled model price: its periods, oldest first (the first is in force from the start of time). */
export class ModelPrice {
  readonly periods: readonly PricePeriod[];
  constructor(periods: readonly PricePeriod[]) {
    this.periods = periods;
  }
}

/**
 * Compiles a spec; a tier prices every token once the prompt exceeds its `start` (long context).
 * @throws RangeError for a negative or non-finite rate, or a tier start that is not a non-negative integer.
 */
export function compilePrice(spec: PriceSpec): ModelPrice {
  const period = (from: number, rates: PartRates) => {
    const [above, levels] = compileRates(rates);
    return new PricePeriod(from, above, levels);
  };
  const periods = [period(Number.NEGATIVE_INFINITY, spec.rates)];
  const changes = (spec.changes ?? []).toSorted((a, b) => a.from - b.from);
  for (const c of changes) periods.push(period(c.from, c.rates));
  return new ModelPrice(periods);
}

function compileRates(r: PartRates): [number[], TierRates[]] {
  const parts = [r.input, r.output, r.cacheRead, r.cacheWrite, r.cacheWrite1h, r.reasoning];
  const starts = new Set<number>();
  for (const p of parts) {
    if (p === undefined) continue;
    check(typeof p === 'number' ? p : p.base);
    if (typeof p === 'number') continue;
    for (const t of p.tiers) {
      if (!Number.isSafeInteger(t.start) || t.start < 0) throw new RangeError(`tier start ${t.start}: expected a non-negative integer`);
      check(t.price);
      starts.add(t.start);
    }
  }
  const above = [...starts].sort((a, b) => a - b);
  // level 0 is "at or below every start"; level i is just above above[i - 1]
  const levels = [-1, ...above].map((start) => {
    const at = (p: Rate | undefined) => (p === undefined ? undefined : rateAbove(p, start));
    const input = at(r.input) as number;
    const output = at(r.output) as number;
    const cacheWrite = at(r.cacheWrite) ?? input;
    return new TierRates(input, output, at(r.cacheRead) ?? input, cacheWrite, at(r.cacheWrite1h) ?? cacheWrite, at(r.reasoning) ?? output);
  });
  return [above, levels];
}

/** The rate of `p` for a prompt just above `start` tokens (-1: the base). */
function rateAbove(p: Rate, start: number): number {
  if (typeof p === 'number') return p;
  let rate = p.base;
  for (const t of p.tiers) if (start >= t.start) rate = t.price;
  return rate;
}

function check(rate: number): void {
  if (!Number.isFinite(rate) || rate < 0) throw new RangeError(`rate ${rate}: expected a non-negative number of USD per million tokens`);
}
