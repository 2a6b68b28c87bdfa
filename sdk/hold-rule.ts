/** `Store.hold`'s admission rule, once for every backend (Redis hands `fitBound` to its Lua script). */
import type { HoldOptions } from '../lib/store/types.ts';

/** Relative slack of the `fit` test: float sums of prices that equal the limit in decimal still fit. */
const FIT_SLACK = 1e-9;

/** The most `value + held + amount` may reach under `limit` with `fit`. */
export function fitBound(limit: number): number {
  return limit + Math.abs(limit) * FIT_SLACK;
}

/** True when a hold of `amount` is admitted, given the counter's `value` and the other live holds' sum `held`. */
export function holdAdmits(value: number, held: number, amount: number, opts: HoldOptions): boolean {
  return value + held < opts.limit && (opts.fit !== true || value + held + amount <= fitBound(opts.limit));
}
