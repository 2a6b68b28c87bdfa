/** Upper bounds of money in the config and the admin API: costs, spends and budgets stay finite (JSON and the store keep no Infinity). */
import { z } from 'zod';

/** The largest USD amount gw accepts for a budget: $1,000,000,000. */
export const MAX_USD = 1e9;
/** The largest price per million tokens: $1,000,000 (a dollar a token; the dearest models list a few hundred). */
export const MAX_USD_PER_MTOK = 1e6;
/**
 * A usage count past this is charged as this many tokens: with prices bounded a request then
 * costs at most about $1e13, so sums of them stay finite.
 */
export const MAX_TOKENS_CHARGED = 1e13;

/** A USD amount: a finite number from 0 to MAX_USD; the errors name the bound. */
export const usdAmount = z
  .number({ error: 'expected USD as a number' })
  .nonnegative('expected USD >= 0')
  .max(MAX_USD, `expected USD <= ${MAX_USD} (1e9, the largest amount gw accepts)`);

/** A price in USD per million tokens: a finite number from 0 to MAX_USD_PER_MTOK; the errors name the bound. */
export const usdPerMtok = z
  .number({ error: 'expected USD per million tokens as a number' })
  .nonnegative('expected USD per million tokens >= 0')
  .max(MAX_USD_PER_MTOK, `expected USD per million tokens <= ${MAX_USD_PER_MTOK} (1e6, a dollar a token, the largest price gw accepts)`);
