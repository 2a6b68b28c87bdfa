/**
 * What a request's usage costs at a compiled price (price.ts), by part, each token charged
 * once at its own part's rate (cached and cache-write tokens are parts of the prompt).
 */
import type { Usage } from '../common/chat.ts';
import { MAX_TOKENS_CHARGED } from './bounds.ts';
import type { ModelPrice, PricePeriod, TierRates } from './price.ts';

/** A request's cost in USD, by part (each at its own rate); `total` is their sum. */
export class Cost {
  /** Uncached input. */
  readonly input: number;
  /** Cache reads. */
  readonly cached_input: number;
  /** Cache writes, every TTL. */
  readonly cache_write: number;
  /** Output, reasoning included unless priced apart. */
  readonly output: number;
  /** Reasoning output when its rate differs from the output rate; 0 otherwise. */
  readonly reasoning: number;
  readonly total: number;
  constructor(input: number, cachedInput: number, cacheWrite: number, output: number, reasoning: number, total: number) {
    this.input = input;
    this.cached_input = cachedInput;
    this.cache_write = cacheWrite;
    this.output = output;
    this.reasoning = reasoning;
    this.total = total;
  }
}

/** The cost of `usage` at `price`, rates in force `at` (epoch ms); a part larger than its whole is capped by it. */
export function costOf(price: ModelPrice, u: Usage, at: number): Cost {
  const r = ratesAt(price, u.prompt_tokens, at);
  const prompt = count(u.prompt_tokens);
  const completion = count(u.completion_tokens);
  const pd = u.prompt_tokens_details;
  const cached = pd ? Math.min(count(pd.cached_tokens), prompt) : 0;
  const writes = pd ? Math.min(count(pd.cache_write_tokens), prompt - cached) : 0;
  const writes1h = pd && writes > 0 ? Math.min(count(pd.cache_write_1h_tokens), writes) : 0;
  const uncached = prompt - cached - writes;
  const cd = u.completion_tokens_details;
  // reasoning apart only when its rate differs: otherwise it is output, as the vendor bills it
  const thinking = cd && r.reasoning !== r.output ? Math.min(count(cd.reasoning_tokens), completion) : 0;
  const input = (uncached * r.input) / 1e6;
  const cachedUsd = (cached * r.cacheRead) / 1e6;
  const writeUsd = ((writes - writes1h) * r.cacheWrite + writes1h * r.cacheWrite1h) / 1e6;
  const output = ((completion - thinking) * r.output) / 1e6;
  const reasoning = (thinking * r.reasoning) / 1e6;
  return new Cost(input, cachedUsd, writeUsd, output, reasoning, input + cachedUsd + writeUsd + output + reasoning);
}

/** The most a request may cost (the budget's reservation): `prompt` at the dearest input-side rate, `output` at the dearest output one. */
export function maxCostOf(price: ModelPrice, prompt: number, output: number, at: number): number {
  const r = ratesAt(price, prompt, at);
  return (count(prompt) * Math.max(r.input, r.cacheWrite, r.cacheWrite1h) + count(output) * Math.max(r.output, r.reasoning)) / 1e6;
}

/** The rates in force at `at` for a prompt of `prompt` tokens. */
export function ratesAt(price: ModelPrice, prompt: number, at: number): TierRates {
  const periods = price.periods;
  let p: PricePeriod = periods[0];
  for (let i = periods.length - 1; i > 0; i--) {
    if (at >= periods[i].from) {
      p = periods[i];
      break;
    }
  }
  const above = p.above;
  let level = 0;
  while (level < above.length && prompt > above[level]) level++;
  return p.levels[level];
}

// a part is a count or absent; anything else (a vendor's null, a string, NaN) reads as 0, and
// an absurd count (1e400 parses as Infinity) as MAX_TOKENS_CHARGED, so a cost is always finite
function count(n: unknown): number {
  return typeof n === 'number' && n > 0 ? Math.min(n, MAX_TOKENS_CHARGED) : 0;
}
