/**
 * The routable models, format-neutral: each client format renders this list in its own
 * shape (`GET /v1/models`, Anthropic's and Gemini's model lists), the admin API as is.
 * A format lists what the calling key may call (its `models` patterns, docs/design.md
 * "Virtual keys"): pass the request's key, so a key never learns of models it cannot use.
 */
import type { Context } from 'koa';
import type { KeyInfo } from '../context.ts';
import type { GwState } from '../pipeline/state.ts';
import type { RoutingTable } from '../routing.ts';
import type { PriceView } from '../pricing/listing.ts';

/** One model or alias, OpenAI's list entry shape plus `alias_for`. */
export interface ModelEntry {
  id: string;
  object: 'model';
  created: number;
  /** Names of the providers serving it, comma-separated. */
  owned_by: string;
  /** For an alias: the canonical model it stands for. */
  alias_for?: string;
  /** Admin list only: the price at each provider serving it and where it came from (core/pricing/listing.ts). */
  prices?: PriceView[];
}

/**
 * Every served model (providers' order), then every alias that is not itself a model id;
 * with a key that has `models`, only the models it may call and the aliases of those.
 * `key` is required on purpose: undefined (the admin API, an open gateway) lists everything.
 */
export function modelListing(table: RoutingTable, key: KeyInfo | undefined): ModelEntry[] {
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

/**
 * The entry for one id, as `GET /v1/models/{id}` answers it: a listed model or alias, or a
 * name an alias pattern routes (`claude-opus-4-1` through `"claude-*"`), shown as an alias
 * of its target. Undefined when the id routes nowhere the key may call.
 */
export function findModel(table: RoutingTable, key: KeyInfo | undefined, id: string): ModelEntry | undefined {
  const listing = modelListing(table, key);
  const listed = listing.find((m) => m.id === id);
  if (listed !== undefined || table.patternFor(id) === undefined) return listed;
  const target = table.resolve(id);
  const served = listing.find((m) => m.id === target && m.alias_for === undefined);
  return served && { id, object: 'model', created: 0, owned_by: served.owned_by, alias_for: target };
}

/** {@link modelListing} for the request's key: what a format's `GET …/models` lists. */
export function modelsFor(ctx: Context): ModelEntry[] {
  const { snap, key } = ctx.state as GwState;
  return modelListing(snap.table, key);
}

/** {@link findModel} for the request's key: what a format's `GET …/models/{id}` answers; undefined → its 404. */
export function modelFor(ctx: Context, id: string): ModelEntry | undefined {
  const { snap, key } = ctx.state as GwState;
  return findModel(snap.table, key, id);
}

/** Served names close to `id` that the request's key may call, for a 404's hint (`MODEL_NOT_FOUND`'s `near`). */
export function nearModels(ctx: Context, id: string): string[] {
  const { snap, key } = ctx.state as GwState;
  return snap.table.closeMatches(id, key?.models === undefined ? undefined : key.allows);
}
