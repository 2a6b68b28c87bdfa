/**
 * The admission rule of `Store.hold` (lib/store/types.ts), kept once for every store
 * backend: LevelDB applies it in process, Redis hands `fitBound` to its Lua script, and a
 * third-party backend imports both from `gw/plugin`.
 */
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

/** The value holds are checked against in counter record `rec`: the sum of `opts.fields` when given, else `opts.field` (absent fields read 0). */
export function holdValue(rec: Readonly<Record<string, number>>, opts: HoldOptions): number {
  const fields = opts.fields;
  if (fields === undefined) return rec[opts.field] ?? 0;
  let sum = 0;
  for (let i = 0; i < fields.length; i++) sum += rec[fields[i]!] ?? 0;
  return sum;
}
