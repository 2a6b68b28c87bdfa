/**
 * Model → provider routing: aliases resolve first, then the group of providers listing
 * the model. A table is immutable; runtime changes build a new one and swap it, so a
 * request in flight keeps the providers it started with.
 */
import { GatewayError } from './errors.ts';
import type { Provider } from './provider.ts';

/** Providers serving one model, with the round-robin cursor. */
export class Group {
  readonly providers: Provider[];
  private cursor = 0;

  constructor(providers: Provider[]) {
    this.providers = providers;
  }

  /** Index of the provider to try first; the caller walks the rest in order on failure. */
  start(): number {
    const n = this.providers.length;
    if (n === 1) return 0;
    const i = this.cursor;
    this.cursor = (i + 1) % n;
    return i;
  }
}

export class RoutingTable {
  private readonly groups = new Map<string, Group>();
  private readonly aliases: Map<string, string>;
  readonly providers: ReadonlyMap<string, Provider>;

  constructor(providers: Iterable<Provider>, aliases: Record<string, string>) {
    const byName = new Map<string, Provider>();
    const lists = new Map<string, Provider[]>();
    for (const p of providers) {
      byName.set(p.name, p);
      for (const m of p.models) {
        const list = lists.get(m);
        if (list) list.push(p);
        else lists.set(m, [p]);
      }
    }
    for (const [m, list] of lists) this.groups.set(m, new Group(list));
    this.providers = byName;
    this.aliases = new Map(Object.entries(aliases));
  }

  /** Canonical model id for a requested name (alias targets are not chained). */
  resolve(model: string): string {
    return this.aliases.get(model) ?? model;
  }

  /**
   * The group serving a canonical model.
   * @throws GatewayError 404 naming the model and close matches.
   */
  group(requested: string, canonical: string): Group {
    const g = this.groups.get(canonical);
    if (g) return g;
    const near = this.closeMatches(requested);
    const what = requested === canonical ? `'${requested}'` : `'${requested}' (alias of '${canonical}')`;
    const msg = `model ${what} is not served by any provider${near.length ? `; did you mean ${near.map((m) => `'${m}'`).join(', ')}?` : ''}`;
    throw new GatewayError(404, msg, { code: 'model_not_found', param: 'model' });
  }

  /** Distinct model ids served (aliases excluded). */
  models(): string[] {
    return [...this.groups.keys()];
  }

  aliasEntries(): Array<[alias: string, target: string]> {
    return [...this.aliases];
  }

  /** Up to 3 known model ids or aliases close to `name` (edit distance or substring). */
  closeMatches(name: string): string[] {
    const lower = name.toLowerCase();
    const scored: Array<[string, number]> = [];
    for (const cand of [...this.groups.keys(), ...this.aliases.keys()]) {
      const c = cand.toLowerCase();
      const d = c.includes(lower) || lower.includes(c) ? 0 : distance(lower, c);
      if (d <= Math.max(2, Math.floor(c.length / 3))) scored.push([cand, d]);
    }
    return scored.sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0])).slice(0, 3).map(([m]) => m);
  }
}

/** Levenshtein distance (two-row). */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  let cur = new Array<number>(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    [prev, cur] = [cur, prev];
  }
  return prev[b.length]!;
}
