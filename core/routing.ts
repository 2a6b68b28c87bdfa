/** Model → providers: aliases resolve, then the group listing the model. A table is immutable; changes swap a new one. */
import { AliasPatterns, isAliasPattern } from '../lib/alias-patterns.ts';
import type { RoutingConfig } from '../lib/config/schema.ts';
import { MODEL_NOT_FOUND } from './error-codes.ts';
import { own } from '../lib/own.ts';
import type { Provider } from '../lib/provider.ts';
import type { Member } from '../lib/resilience/member.ts';
import { Group } from '../lib/resilience/strategy.ts';

export { Group };

export class RoutingTable {
  private readonly groups = new Map<string, Group>();
  /** Exact aliases. */
  private readonly aliases = new Map<string, string>();
  /** Alias patterns (`"claude-*"`), or undefined when there are none: exact names never pay for them. */
  private readonly patterns: AliasPatterns | undefined;
  readonly providers: ReadonlyMap<string, Provider>;

  readonly fallbacks: ReadonlyMap<string, readonly string[]>;

  /** Members of the gateway's MemberPool, already configured for this snapshot. */
  readonly members: ReadonlyMap<string, Member>;

  /**
   * @param members one per provider, in listing order; @param routing strategies and
   *   affinity (`[routing]`, per model under `[routing.models."<model>"]`); @param fallbacks `[fallbacks]`.
   */
  constructor(
    members: Iterable<Member>,
    aliases: Record<string, string>,
    routing: Pick<RoutingConfig, 'strategy' | 'models'> & { affinity?: boolean },
    fallbacks: Record<string, string[]> = {},
  ) {
    const byName = new Map<string, Provider>();
    const byProvider = new Map<string, Member>();
    const lists = new Map<string, Member[]>();
    for (const member of members) {
      const p = member.provider;
      byName.set(p.name, p);
      byProvider.set(p.name, member);
      for (const m of new Set(p.models)) {
        const list = lists.get(m);
        if (list) list.push(member);
        else lists.set(m, [member]);
      }
    }
    for (const [m, list] of lists) {
      const per = own(routing.models, m);
      this.groups.set(m, new Group(list, per?.strategy ?? routing.strategy, per?.affinity ?? routing.affinity ?? false));
    }
    this.providers = byName;
    this.members = byProvider;
    const patterns: Array<[string, string]> = [];
    for (const [name, target] of Object.entries(aliases)) {
      if (isAliasPattern(name)) patterns.push([name, target]);
      else this.aliases.set(name, target);
    }
    this.patterns = patterns.length ? new AliasPatterns(patterns) : undefined;
    this.fallbacks = new Map(Object.entries(fallbacks));
  }

  /** The group serving a canonical model, or undefined. */
  find(canonical: string): Group | undefined {
    return this.groups.get(canonical);
  }

  /** Fallback models (canonical) for a request, from `[fallbacks]` keyed by the requested or canonical name. */
  fallbacksFor(requested: string, canonical: string): string[] {
    const list = this.fallbacks.get(canonical) ?? this.fallbacks.get(requested);
    return list ? list.map((m) => this.resolve(m)).filter((m) => m !== canonical) : [];
  }

  /** The canonical model of a name: an exact alias's target, a model id, a winning pattern's target, else the name (no chains). */
  resolve(model: string): string {
    const exact = this.aliases.get(model);
    if (exact !== undefined) return exact;
    if (this.patterns === undefined || this.groups.has(model)) return model;
    return this.patterns.match(model)?.target ?? model;
  }

  /** The alias pattern a requested name resolves through, or undefined (an exact name, or no pattern matched). */
  patternFor(model: string): string | undefined {
    if (this.patterns === undefined || this.aliases.has(model) || this.groups.has(model)) return undefined;
    return this.patterns.match(model)?.pattern;
  }

  /**
   * The group serving a canonical model.
   * @throws GatewayError 404 naming the model and close matches (only those `allows` lets through, when given).
   */
  group(requested: string, canonical: string, allows?: (model: string) => boolean): Group {
    const g = this.groups.get(canonical);
    if (g) return g;
    const near = this.closeMatches(requested, allows);
    const pattern = requested === canonical ? undefined : this.patternFor(requested);
    const via = pattern === undefined ? '' : `, by the alias pattern '${pattern}'`;
    throw MODEL_NOT_FOUND({ what: requested === canonical ? `'${requested}'` : `'${requested}' (alias of '${canonical}'${via})`, near });
  }

  /** Distinct model ids served (aliases excluded). */
  models(): string[] {
    return [...this.groups.keys()];
  }

  /** Exact aliases and their targets (patterns are not names a client can list). */
  aliasEntries(): Array<[alias: string, target: string]> {
    return [...this.aliases];
  }

  /** Up to 3 names close to `name` that `allows` lets through; bounded work (256 characters, 5000 candidates). */
  closeMatches(name: string, allows?: (model: string) => boolean): string[] {
    if (name.length > 256) return [];
    const lower = name.toLowerCase();
    const scored: Array<[string, number]> = [];
    let looked = 0;
    for (const cand of [...this.groups.keys(), ...this.aliases.keys()]) {
      if (++looked > 5000) break;
      if (allows !== undefined && !allows(this.resolve(cand))) continue;
      const c = cand.toLowerCase();
      const max = Math.max(2, Math.floor(c.length / 3));
      if (c.includes(lower) || lower.includes(c)) {
        scored.push([cand, 0]);
        continue;
      }
      if (Math.abs(c.length - lower.length) > max) continue;
      const d = distance(lower, c);
      if (d <= max) scored.push([cand, d]);
    }
    return scored
      .sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0]))
      .slice(0, 3)
      .map(([m]) => m);
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
