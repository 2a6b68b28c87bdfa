/**
 * DashScope (Alibaba Cloud Model Studio) prices, international deployment (Singapore), USD
 * per million tokens: the bundled dataset (@pydantic/genai-prices) has no Alibaba provider.
 * Tiers apply to every token of a request once its input exceeds `start` tokens (Model
 * Studio bills by the input-length band). Cache reads are the implicit cache's price (20%
 * of input), cache writes the explicit cache's creation price (125% of input). A thinking
 * (reasoning) rate is billed for the reasoning tokens; Model Studio bills a thinking-mode
 * answer's whole output at it, which an operator who runs thinking mode overrides with
 * `[providers.<name>.pricing."<model>"]`.
 *
 * Source of every entry: Alibaba Cloud Model Studio, Model pricing (SOURCE below)
 * (International), as transcribed by models.dev (MIT, github.com/anomalyco/models.dev,
 * providers/alibaba/models/<id>.toml); read 2026-11-27. The China (Beijing) deployment bills
 * in CNY at other prices: price it per provider.
 */
import type { PartRates } from '../../lib/pricing/price.ts';

/** One model's entry: the ids it prices (each also as `<id>-latest` and dated `<id>-YYYY-MM-DD` snapshots). */
export interface SupplementEntry {
  readonly id: string;
  readonly source: string;
  /** When the source was read, YYYY-MM-DD. */
  readonly read: string;
  readonly rates: PartRates;
}

const SOURCE = 'https://www.alibabacloud.com/help/en/model-studio/model-pricing (International; via models.dev providers/alibaba)';
const READ = '2026-11-27';

/** Tiered rate: `base` up to the first start, then each tier's price above its start. */
const tiered = (base: number, ...tiers: Array<[start: number, price: number]>) => ({ base, tiers: tiers.map(([start, price]) => ({ start, price })) });

export const DASHSCOPE: readonly SupplementEntry[] = [
  {
    id: 'qwen3-coder-plus',
    source: SOURCE,
    read: READ,
    rates: {
      input: tiered(1, [32_000, 1.8], [128_000, 3], [256_000, 6]),
      output: tiered(5, [32_000, 9], [128_000, 15], [256_000, 60]),
      cacheRead: tiered(0.2, [32_000, 0.36], [128_000, 0.6], [256_000, 1.2]),
      cacheWrite: tiered(1.25, [32_000, 2.25], [128_000, 3.75], [256_000, 7.5]),
    },
  },
  {
    id: 'qwen3-coder-flash',
    source: SOURCE,
    read: READ,
    rates: {
      input: tiered(0.3, [32_000, 0.5], [128_000, 0.8], [256_000, 1.6]),
      output: tiered(1.5, [32_000, 2.5], [128_000, 4], [256_000, 9.6]),
      cacheRead: tiered(0.06, [32_000, 0.1], [128_000, 0.16], [256_000, 0.32]),
      cacheWrite: tiered(0.375, [32_000, 0.625], [128_000, 1], [256_000, 2]),
    },
  },
  {
    id: 'qwen3-max',
    source: SOURCE,
    read: READ,
    rates: {
      input: tiered(1.2, [32_000, 2.4], [128_000, 3]),
      output: tiered(6, [32_000, 12], [128_000, 15]),
      cacheRead: tiered(0.24, [32_000, 0.48], [128_000, 0.6]),
      cacheWrite: tiered(1.5, [32_000, 3], [128_000, 3.75]),
    },
  },
  {
    id: 'qwen-plus',
    source: SOURCE,
    read: READ,
    rates: {
      input: tiered(0.4, [256_000, 1.2]),
      output: tiered(1.2, [256_000, 3.6]),
      reasoning: tiered(4, [256_000, 12]),
      cacheRead: tiered(0.08, [256_000, 0.24]),
      cacheWrite: tiered(0.5, [256_000, 1.5]),
    },
  },
  {
    id: 'qwen-flash',
    source: SOURCE,
    read: READ,
    rates: {
      input: tiered(0.05, [256_000, 0.25]),
      output: tiered(0.4, [256_000, 2]),
      cacheRead: tiered(0.01, [256_000, 0.05]),
      cacheWrite: tiered(0.063, [256_000, 0.313]),
    },
  },
  {
    id: 'qwen-turbo',
    source: SOURCE,
    read: READ,
    rates: { input: 0.05, output: 0.2, reasoning: 0.5, cacheRead: 0.01 },
  },
];
