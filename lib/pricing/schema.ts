/**
 * The config shape of a price (`[pricing."<model>"]`, `[providers.<name>.pricing."<model>"]`,
 * docs/configuration.md "Pricing"): USD per million tokens by part, `tiers` by prompt size,
 * `changes` by date. Validated with zod (errors name the key path) and turned into a
 * PriceSpec (price.ts).
 */
import { parseDateTime } from '../dates.ts';
import { z } from 'zod';
import { usdPerMtok as usd } from './bounds.ts';
import type { PartRates, PriceSpec, Rate } from './price.ts';

const partShape = {
  /** Uncached input. */
  input_per_mtok: usd,
  output_per_mtok: usd,
  /** Cache reads; default the input rate. */
  cache_read_per_mtok: usd.optional(),
  /** Cache writes (5-minute TTL, or the only TTL); default the input rate. */
  cache_write_per_mtok: usd.optional(),
  /** Cache writes at the 1-hour TTL; default cache_write_per_mtok. */
  cache_write_1h_per_mtok: usd.optional(),
  /** Reasoning output where it is priced apart; default the output rate. */
  reasoning_per_mtok: usd.optional(),
};
type PartField = Exclude<keyof typeof partShape, 'input_per_mtok' | 'output_per_mtok'> | 'input_per_mtok' | 'output_per_mtok';

/** A tier: from `above_tokens` prompt tokens up, these rates apply to every token of the request; a rate it omits stays the one below. */
const tierSchema = z.strictObject({
  above_tokens: z.number().int().positive(),
  input_per_mtok: usd.optional(),
  output_per_mtok: usd.optional(),
  cache_read_per_mtok: usd.optional(),
  cache_write_per_mtok: usd.optional(),
  cache_write_1h_per_mtok: usd.optional(),
  reasoning_per_mtok: usd.optional(),
});

const tiers = z
  .array(tierSchema)
  .optional()
  .superRefine((list, ctx) => {
    for (let i = 1; i < (list?.length ?? 0); i++) {
      if (list![i].above_tokens <= list![i - 1].above_tokens)
        ctx.addIssue({
          code: 'custom',
          path: [i, 'above_tokens'],
          message: `expected tiers in increasing above_tokens order (${list![i - 1].above_tokens} comes before)`,
        });
    }
  });

const DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/;
/** A TOML date (`2026-03-13`), date-time, or the same as a string; UTC when it has no offset. */
const startDate = z.union([
  z.date(),
  z
    .string()
    .regex(DATE, 'expected a date "YYYY-MM-DD" or an RFC 3339 date-time')
    .refine((s) => typeof parseDateTime(s) === 'number', 'expected a real calendar date'),
]);

const changeSchema = z.strictObject({ start_date: startDate, ...partShape, tiers });

/** `[pricing."<model>"]`: USD per million tokens by part, with `tiers` and dated `changes`. */
export const priceConfigSchema = z
  .strictObject({
    ...partShape,
    tiers,
    /** Later prices, each in force from its `start_date` (a whole price: its parts, its tiers). */
    changes: z.array(changeSchema).optional(),
  })
  .superRefine((p, ctx) => {
    const seen = new Set<number>();
    p.changes?.forEach((c, i) => {
      const at = dateMs(c.start_date);
      if (seen.has(at)) ctx.addIssue({ code: 'custom', path: ['changes', i, 'start_date'], message: 'expected one change per start_date' });
      seen.add(at);
    });
  });

export type PriceConfig = z.output<typeof priceConfigSchema>;
type Parts = Pick<PriceConfig, keyof typeof partShape | 'tiers'>;

/** The spec of a validated config price. */
export function specOf(p: PriceConfig): PriceSpec {
  return {
    rates: ratesOf(p),
    changes: p.changes?.map((c) => ({ from: dateMs(c.start_date), rates: ratesOf(c) })),
  };
}

function ratesOf(p: Parts): PartRates {
  const rate = (field: PartField): Rate | undefined => {
    const base = p[field];
    const list = (p.tiers ?? []).filter((t) => t[field] !== undefined).map((t) => ({ start: t.above_tokens, price: t[field] as number }));
    if (base === undefined) return list.length ? { base: p.input_per_mtok, tiers: list } : undefined;
    return list.length ? { base, tiers: list } : base;
  };
  return {
    input: rate('input_per_mtok') as Rate,
    output: rate('output_per_mtok') as Rate,
    cacheRead: rate('cache_read_per_mtok'),
    cacheWrite: rate('cache_write_per_mtok'),
    cacheWrite1h: rate('cache_write_1h_per_mtok'),
    reasoning: rate('reasoning_per_mtok'),
  };
}

function dateMs(d: Date | string): number {
  if (d instanceof Date) return d.getTime();
  // a bare date is UTC midnight; a date-time without offset is refused by DATE
  return parseDateTime(d) as number;
}
