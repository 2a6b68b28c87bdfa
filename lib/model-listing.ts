/** The routable models, format-neutral, as the calling key may see them; each format renders them its way. */
import type { KeyInfo } from './keys.ts';
import type { PriceView } from './pricing/listing.ts';

/** What a listing reads of the routing table (core/routing.ts RoutingTable). */
export interface ModelTable {
  readonly providers: ReadonlyMap<string, { readonly name: string; readonly models: readonly string[] }>;
  aliasEntries(): Array<[alias: string, target: string]>;
  patternFor(model: string): string | undefined;
  resolve(model: string): string;
}

/** One model or alias, OpenAI's list entry shape plus `alias_for`. */
export interface ModelEntry {
  id: string;
  object: 'model';
  created: number;
  /** Names of the providers serving it, comma-separated. */
  owned_by: string;
  /** For an alias: the canonical model it stands for. */
  alias_for?: string;
  /** Admin list only: the price at each provider serving it and where it came from (lib/pricing/listing.ts). */
  prices?: PriceView[];
}

/** Served models, then aliases, as far as `key` may call them (required on purpose: undefined lists everything). */
export function modelListing(table: ModelTable, key: KeyInfo | undefined): ModelEntry[] {
  const allows = key?.models === undefined ? undefined : key.allows;
  const owners = new Map<string, string[]>();
  for (const p of table.providers.values()) {
    for (const m of p.models) {
      const list = owners.get(m);
      if (list) list.push(p.name);
      else owners.set(m, [p.name]);
    }
  }
  const data: ModelEntry[] = [];
  for (const [id, by] of owners) if (allows === undefined || allows(id)) data.push({ id, object: 'model', created: 0, owned_by: by.join(',') });
  for (const [alias, target] of table.aliasEntries()) {
    if (owners.has(alias) || (allows !== undefined && !allows(target))) continue;
    data.push({ id: alias, object: 'model', created: 0, owned_by: (owners.get(target) ?? []).join(','), alias_for: target });
  }
  return data;
}

/** One id's entry (a name a pattern routes shows as an alias of its target); undefined when `key` may not call it. */
export function findModel(table: ModelTable, key: KeyInfo | undefined, id: string): ModelEntry | undefined {
  const listing = modelListing(table, key);
  const listed = listing.find((m) => m.id === id);
  if (listed !== undefined || table.patternFor(id) === undefined) return listed;
  const target = table.resolve(id);
  const served = listing.find((m) => m.id === target && m.alias_for === undefined);
  return served && { id, object: 'model', created: 0, owned_by: served.owned_by, alias_for: target };
}
