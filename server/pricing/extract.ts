/**
 * What gw keeps of @pydantic/genai-prices' dataset: the providers the built-in kinds map to
 * (and the providers they fall back to), each with its models' ids, match rules and prices.
 * `npm run prices:update` writes it to genai-prices.json, which the gateway reads at startup
 * (why: docs/benchmarks.md#prices-extracted-not-imported); test/unit/pricing-table.test.ts
 * fails when the file and the installed package differ.
 */
import { readFileSync } from 'node:fs';
import { findProvider, type MatchLogic, type ModelInfo } from '@pydantic/genai-prices';

/** The kept dataset: its package version and providers by id. */
export interface PriceData {
  version: string;
  providers: Record<string, { fallback: string[]; models: Array<{ id: string; match: MatchLogic; prices: ModelInfo['prices'] }> }>;
}

/** The dataset's part for `providerIds` and every provider they fall back to. */
export function extractPrices(providerIds: readonly string[]): PriceData {
  const version = (JSON.parse(readFileSync(new URL('../package.json', import.meta.resolve('@pydantic/genai-prices')), 'utf8')) as { version: string }).version;
  const providers: PriceData['providers'] = {};
  const todo = [...providerIds];
  for (let id = todo.shift(); id !== undefined; id = todo.shift()) {
    if (Object.hasOwn(providers, id)) continue;
    const p = findProvider({ providerId: id });
    if (!p) continue;
    const fallback = p.fallback_model_providers ?? [];
    providers[id] = { fallback, models: p.models.map((m) => ({ id: m.id, match: m.match, prices: m.prices })) };
    for (const f of fallback) todo.push(f);
  }
  return { version, providers };
}
