/**
 * Which price a request is charged at (docs/design.md "Pricing"), by the provider that served
 * it and the served model; a provider without one is charged the dearest other's (`charged`).
 * One book per snapshot, each lookup remembered for its life.
 */
import type { Logger } from 'pino';
import type { Usage } from '../common/chat.ts';
import { own } from '../own.ts';
import { costOf, maxCostOf } from './cost.ts';
import { compilePrice, type ModelPrice, type PriceSpec } from './price.ts';

/** Where a price came from. */
export type PriceSource = 'provider' | 'config' | 'bundled';

/** A price found for a (provider, model), with where it came from. */
export interface ResolvedPrice {
  readonly price: ModelPrice;
  readonly spec: PriceSpec;
  readonly source: PriceSource;
  /** The entry: the `[pricing]` key, or the bundled table's `<provider>/<model id>`. */
  readonly entry: string;
  /** The bundled table and its version (e.g. `@pydantic/genai-prices 0.1.8`), for `bundled`. */
  readonly table?: string;
}

/** The bundled price table, loaded once; `lookup` runs once per (kind, model) and snapshot. */
export interface PriceTable {
  /** Name and version, shown with every price taken from it. */
  readonly name: string;
  /** The price of `model` served by a provider of `kind` (a built-in kind), or undefined. */
  lookup(kind: string, model: string): { spec: PriceSpec; entry: string } | undefined;
}

/** What the book needs to know of a provider. */
export interface PricedProvider {
  readonly name: string;
  /** The kind whose bundled prices apply (a built-in kind), or undefined for a self-defined one. */
  readonly priceKind: string | undefined;
  /** Its own prices by model (`[providers.<name>.pricing]`), compiled. */
  readonly pricing: ReadonlyMap<string, ResolvedPrice>;
}

/** A provider serving a model, as a routing group lists it. */
type Member = { readonly provider: { readonly name: string } };
/** The routing table, as far as prices need it: the providers serving each model. */
interface Routes {
  models(): string[];
  find(model: string): { members: readonly Member[] } | undefined;
}

/** Lookups remembered per provider at most: model ids come from the routing table, this only bounds a bug. */
const MEMO_MAX = 4096;

export class PriceBook {
  private readonly config: ReadonlyMap<string, ResolvedPrice>;
  private readonly providers: ReadonlyMap<string, PricedProvider>;
  private readonly memo = new Map<string, Map<string, ResolvedPrice | null>>();
  readonly table: PriceTable | undefined;

  /**
   * @param config `[pricing]` compiled (configPrices); @param providers every routed
   * provider; @param table the bundled table, if the host loaded one.
   */
  constructor(config: ReadonlyMap<string, ResolvedPrice>, providers: Iterable<PricedProvider>, table: PriceTable | undefined) {
    this.table = table;
    this.config = config;
    this.providers = new Map([...providers].map((p) => [p.name, p]));
  }

  /**
   * The price of `served` when `provider` served it (null: no price anywhere), falling back
   * to `[pricing]` of `canonical` and `asked` (the requested model and the client's name).
   */
  priceFor(provider: string | undefined, served: string, canonical = served, asked = canonical): ResolvedPrice | null {
    const found = provider === undefined ? (this.config.get(served) ?? null) : this.served(provider, served);
    if (found !== null || (canonical === served && asked === served)) return found;
    return this.config.get(canonical) ?? this.config.get(asked) ?? null;
  }

  /**
   * The price a request served by `provider` is charged at: `priceFor`, else the dearest for
   * `usage` (prices in force `at`, epoch ms) among `served`'s then `canonical`'s providers, so
   * routing never makes a request cheaper or unpriced. Null when none has a price.
   */
  charged(provider: string | undefined, served: string, canonical: string, asked: string, table: Routes, usage: Usage, at: number): ResolvedPrice | null {
    const direct = provider === undefined ? null : this.served(provider, served);
    if (direct !== null) return direct;
    return (
      this.dearest(served, table.find(served)?.members ?? [], usage, at) ??
      this.priceFor(provider, served, canonical, asked) ??
      (canonical === served ? null : this.dearest(canonical, table.find(canonical)?.members ?? [], usage, at))
    );
  }

  /** The price of `model` among `members` at which `usage` costs the most, or null when none has one. */
  private dearest(model: string, members: readonly Member[], usage: Usage, at: number): ResolvedPrice | null {
    let best: ResolvedPrice | null = null;
    let most = -1;
    for (const m of members) {
      const p = this.served(m.provider.name, model);
      if (p === null || p === best) continue;
      const c = costOf(p.price, usage, at).total;
      if (c > most) {
        best = p;
        most = c;
      }
    }
    return best;
  }

  /** Whether `model` has a price at one of `members` (the providers serving it), or in `[pricing]`. */
  priced(model: string, members: readonly Member[]): boolean {
    for (const m of members) if (this.served(m.provider.name, model) !== null) return true;
    return this.config.has(model);
  }

  /** The budget's reservation for `model`: `maxCostOf` at the dearest priced member, else `[pricing]` of `model` or `asked`. */
  maxCost(model: string, members: readonly Member[], prompt: number, output: number, at: number, asked = model): number | null {
    let max: number | null = null;
    for (const m of members) {
      const p = this.served(m.provider.name, model);
      if (p === null) continue;
      const c = maxCostOf(p.price, prompt, output, at);
      if (max === null || c > max) max = c;
    }
    if (max !== null) return max;
    const p = this.config.get(model) ?? this.config.get(asked);
    return p ? maxCostOf(p.price, prompt, output, at) : null;
  }

  private served(provider: string, model: string): ResolvedPrice | null {
    let m = this.memo.get(provider);
    const hit = m?.get(model);
    if (hit !== undefined) return hit;
    const p = this.providers.get(provider);
    const found = p?.pricing.get(model) ?? this.config.get(model) ?? this.bundled(p?.priceKind, model);
    if (!m) this.memo.set(provider, (m = new Map()));
    if (m.size < MEMO_MAX) m.set(model, found);
    return found;
  }

  private bundled(kind: string | undefined, model: string): ResolvedPrice | null {
    if (kind === undefined || !this.table) return null;
    const hit = this.table.lookup(kind, model);
    if (!hit) return null;
    return { price: compilePrice(hit.spec), spec: hit.spec, source: 'bundled', entry: hit.entry, table: this.table.name };
  }
}

/**
 * Compiles configured prices (`[pricing]` or a provider's) by model.
 * @throws RangeError from compilePrice (the config schema rules those out first).
 */
export function compileConfigured(prices: Readonly<Record<string, PriceSpec>>, source: 'provider' | 'config'): Map<string, ResolvedPrice> {
  const out = new Map<string, ResolvedPrice>();
  for (const model of Object.keys(prices)) {
    const spec = own(prices, model) as PriceSpec;
    out.set(model, { price: compilePrice(spec), spec, source, entry: model });
  }
  return out;
}

/** What the unpriced listings read of a snapshot. */
interface PricedRoutes {
  prices: PriceBook;
  table: Routes;
}

/** Every routed model that has no price at any provider serving it, nor in `[pricing]`. */
export function unpricedModels(s: PricedRoutes): string[] {
  return s.table.models().filter((m) => !s.prices.priced(m, s.table.find(m)?.members ?? []));
}

/** Every routed (provider, model) the provider has no price for, by model then provider. */
export function unpricedPairs(s: PricedRoutes): Array<{ provider: string; model: string }> {
  const out: Array<{ provider: string; model: string }> = [];
  for (const model of s.table.models())
    for (const m of s.table.find(model)?.members ?? []) if (s.prices.priceFor(m.provider.name, model) === null) out.push({ provider: m.provider.name, model });
  return out;
}

/** Warns about a snapshot's unpriced pairs, once per distinct set. */
export function unpricedWarner(log: Logger): (routes: PricedRoutes) => void {
  let warned = '';
  return (routes) => {
    const pairs = unpricedPairs(routes);
    const text = JSON.stringify(pairs);
    if (text !== warned && pairs.length)
      log.warn(
        { pairs, models: unpricedModels(routes) },
        'no price for these (provider, model) pairs in [pricing], the provider\'s pricing or the bundled table: a request one serves is charged at the dearest price another provider of the model has; the models no provider prices (models) cost null, and the budget refuses them unless unpriced = "allow"',
      );
    warned = text;
  };
}
