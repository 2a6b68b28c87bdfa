/**
 * Alias patterns (`"claude-*" = "qwen3-coder-plus"`), so the names agents send on their own
 * route. After exact names, the longest pattern wins, then fewer `*`, then code-unit order.
 */
import { globMatch } from './model-glob.ts';

/** One alias pattern and the model id it stands for. */
export interface AliasPattern {
  readonly pattern: string;
  readonly target: string;
}

/** Distinct requested names whose resolution a table remembers (a FIFO past that). */
export const RESOLVED_CACHE_MAX = 4096;

/** True when an `[aliases]` name is a pattern rather than an exact name. */
export function isAliasPattern(name: string): boolean {
  return name.includes('*');
}

/** Sort order of patterns: the first that matches a name is the one that wins. */
export function comparePatterns(a: string, b: string): number {
  return b.length - a.length || stars(a) - stars(b) || (a < b ? -1 : a > b ? 1 : 0);
}

function stars(p: string): number {
  let n = 0;
  for (let i = 0; i < p.length; i++) if (p.charCodeAt(i) === 42 /* * */) n++;
  return n;
}

/** A snapshot's alias patterns by precedence; each name's outcome is kept in a bounded map (made-up names cost one walk). */
export class AliasPatterns {
  /** In precedence order. */
  readonly list: readonly AliasPattern[];
  private readonly resolved = new Map<string, AliasPattern | null>();

  constructor(entries: Iterable<readonly [pattern: string, target: string]>) {
    const list: AliasPattern[] = [];
    for (const [pattern, target] of entries) list.push({ pattern, target });
    list.sort((a, b) => comparePatterns(a.pattern, b.pattern));
    this.list = list;
  }

  /** The pattern that wins for `name`, or undefined when none matches. */
  match(name: string): AliasPattern | undefined {
    const hit = this.resolved.get(name);
    if (hit !== undefined) return hit ?? undefined;
    let found: AliasPattern | null = null;
    for (const p of this.list) {
      if (globMatch(p.pattern, name)) {
        found = p;
        break;
      }
    }
    if (this.resolved.size >= RESOLVED_CACHE_MAX) this.resolved.delete(this.resolved.keys().next().value!);
    this.resolved.set(name, found);
    return found ?? undefined;
  }
}
