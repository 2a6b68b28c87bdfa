/**
 * The bundled price table (docs/design.md "Pricing"): @pydantic/genai-prices' data (MIT;
 * bundled in the package, no network) for the built-in kinds, plus gw's own DashScope
 * supplement (dashscope.ts). The part gw uses is kept in genai-prices.json (extract.ts,
 * `npm run prices:update`), read once at startup into PriceSpecs the core compiles; the
 * package is not loaded by a running gateway. A dated model id finds its family
 * by the dataset's match rules (`claude-sonnet-4-5-20250929` → `claude-sonnet-4-5`).
 * Updating the table = updating the package (README "Prices").
 */
import type { MatchLogic, ModelPrice } from '@pydantic/genai-prices';
import type { PriceData } from './extract.ts';
import genaiPrices from './genai-prices.json' with { type: 'json' };
import type { PriceTable } from '../../lib/pricing/book.ts';
import type { PartRates, PriceSpec, Rate } from '../../lib/pricing/price.ts';
import { DASHSCOPE } from './dashscope.ts';

const PACKAGE = '@pydantic/genai-prices';

type Provider = PriceData['providers'][string] & { id: string };
type ModelInfo = Provider['models'][number];

/** gw kind → the dataset's provider (its own fallbacks follow: azure → openai, anthropic…). */
export const KIND_PROVIDERS: Readonly<Record<string, string>> = {
  openai: 'openai',
  azure: 'azure',
  anthropic: 'anthropic',
  gemini: 'google',
  zhipu: 'zhipuai',
};
/** Kinds priced by gw's supplement. */
const SUPPLEMENTS: Readonly<Record<string, typeof DASHSCOPE>> = { dashscope: DASHSCOPE };

/** The mock kind's price: zero for every part. */
const FREE: PriceSpec = { rates: { input: 0, output: 0 } };

/** The table: the dataset's version in its name, e.g. `@pydantic/genai-prices 0.1.8 + gw dashscope 2026-11-27`. */
export function bundledPrices(): PriceTable {
  const data = genaiPrices as unknown as PriceData;
  const version = data.version;
  const findProvider = ({ providerId }: { providerId: string }): Provider | undefined =>
    Object.hasOwn(data.providers, providerId) ? { id: providerId, ...data.providers[providerId]! } : undefined;
  const findModel = (p: Provider, model: string, seen = new Set<string>()): { provider: string; model: ModelInfo } | undefined => {
    seen.add(p.id);
    const m = p.models.find((x) => matches(x.match, model));
    if (m) return { provider: p.id, model: m };
    for (const id of p.fallback) {
      const f = seen.has(id) ? undefined : findProvider({ providerId: id });
      const hit = f && findModel(f, model, seen);
      if (hit) return hit;
    }
    return undefined;
  };
  return {
    name: `${PACKAGE} ${version} + gw dashscope ${DASHSCOPE[0]?.read}`,
    lookup(kind, model) {
      // the mock kind answers from gw itself: nothing to pay, and no "no price" warning on the example config
      if (kind === 'mock') return { spec: FREE, entry: 'mock (free)' };
      const supplement = Object.hasOwn(SUPPLEMENTS, kind) ? SUPPLEMENTS[kind] : undefined;
      if (supplement) {
        const e = supplement.find((s) => snapshotOf(s.id, model));
        return e ? { spec: { rates: e.rates }, entry: `${kind}/${e.id}` } : undefined;
      }
      const providerId = Object.hasOwn(KIND_PROVIDERS, kind) ? KIND_PROVIDERS[kind] : undefined;
      const provider = providerId === undefined ? undefined : findProvider({ providerId });
      if (!provider) return undefined;
      const found = findModel(provider, model) ?? (undated(model) !== model ? findModel(provider, undated(model)) : undefined);
      if (!found) return undefined;
      const spec = specOf(found.model);
      return spec ? { spec, entry: `${found.provider}/${found.model.id}` } : undefined;
    },
  };
}

/** `id` itself, `<id>-latest` or a dated snapshot `<id>-YYYY-MM-DD`. */
function snapshotOf(id: string, model: string): boolean {
  return model === id || (model.startsWith(`${id}-`) && /^(latest|\d{4}-\d{2}-\d{2})$/.test(model.slice(id.length + 1)));
}

/** The dataset's match rules (case-insensitive but `regex`). */
function matches(m: MatchLogic, model: string): boolean {
  const id = model.toLowerCase();
  if ('or' in m) return m.or.some((x) => matches(x, model));
  if ('and' in m) return m.and.every((x) => matches(x, model));
  if ('equals' in m) return id === m.equals.toLowerCase();
  if ('starts_with' in m) return id.startsWith(m.starts_with.toLowerCase());
  if ('ends_with' in m) return id.endsWith(m.ends_with.toLowerCase());
  if ('contains' in m) return id.includes(m.contains.toLowerCase());
  if ('regex' in m) return new RegExp(m.regex).test(model);
  return false;
}

/** `-20250929` → `-2025-09-29`, as the dataset retries a dated id. */
function undated(model: string): string {
  return model.replace(/-(20\d{2})(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])(?=-|:|$)/g, '-$1-$2-$3');
}

/**
 * A model's text-token prices as a spec: its first price in force from the start of time,
 * later `start_date` entries as changes (time-of-day prices are not text prices gw can
 * pick by date: skipped); undefined when it has no input price (audio, image models).
 */
function specOf(m: ModelInfo): PriceSpec | undefined {
  const list = Array.isArray(m.prices) ? m.prices : [{ prices: m.prices }];
  const first = list[0] && ratesOf(list[0].prices);
  if (!first) return undefined;
  const changes: Array<{ from: number; rates: PartRates }> = [];
  for (const c of list.slice(1)) {
    const rates = ratesOf(c.prices);
    if (rates && c.constraint?.type === 'start_date') changes.push({ from: Date.parse(c.constraint.start_date), rates });
  }
  return changes.length ? { rates: first, changes } : { rates: first };
}

function ratesOf(p: ModelPrice): PartRates | undefined {
  const input = rate(p.input_mtok);
  if (input === undefined) return undefined;
  return {
    input,
    output: rate(p.output_mtok) ?? 0,
    cacheRead: rate(p.cache_read_mtok),
    cacheWrite: rate(p.cache_write_mtok) ?? rate(p.cache_write_5m_mtok),
    cacheWrite1h: rate(p.cache_write_1h_mtok),
  };
}

function rate(v: ModelPrice[string]): Rate | undefined {
  if (v === undefined) return undefined;
  if (typeof v === 'number') return v;
  return { base: v.base, tiers: v.tiers.map((t) => ({ start: t.start, price: t.price })) };
}
