/**
 * Which checks apply to a request's key: every check without `keys` or `tags`; a scoped one
 * when the key is named in its `keys` or carries all its `tags`; then the key's own
 * `guardrails` list adds checks (`"name"`) and opts out of them (`"-name"`).
 */
import type { Check } from './checks.ts';

/** What of a key decides its checks. */
export interface KeyScope {
  readonly name: string;
  readonly tags?: Readonly<Record<string, string>>;
  /** The key setting: `["pii_strict", "-secrets"]`. */
  readonly guardrails?: readonly string[];
}

const NONE: readonly Check[] = Object.freeze([]);

/** Checks by key, with the answer for a key that changes nothing computed once. */
export class CheckScope {
  private readonly all: readonly Check[];
  private readonly unscoped: readonly Check[];
  private readonly scoped: boolean;

  constructor(checks: readonly Check[]) {
    this.all = checks;
    this.unscoped = checks.length === 0 ? NONE : Object.freeze(checks.filter((c) => c.keys === undefined && c.tags === undefined));
    this.scoped = this.unscoped.length !== checks.length;
  }

  /** The checks that apply to `key` (undefined: a gateway without keys), in config order; a shared empty list when none. */
  checksFor(key: KeyScope | undefined): readonly Check[] {
    const own = key?.guardrails;
    if (!this.scoped && (own === undefined || own.length === 0)) return this.unscoped;
    const out: Check[] = [];
    // whether the answer differs from the unscoped list: else that shared list is the answer
    let differs = false;
    for (const check of this.all) {
      const unscoped = check.keys === undefined && check.tags === undefined;
      let applies = unscoped;
      if (!applies && key !== undefined) applies = check.keys?.has(key.name) === true || (check.tags !== undefined && carries(key.tags, check.tags));
      if (own !== undefined) {
        if (own.includes(check.name)) applies = true;
        else if (own.includes(`-${check.name}`)) applies = false;
      }
      if (applies !== unscoped) differs = true;
      if (applies) out.push(check);
    }
    if (!differs) return this.unscoped;
    return out.length === 0 ? NONE : out;
  }
}

function carries(tags: Readonly<Record<string, string>> | undefined, wanted: Readonly<Record<string, string>>): boolean {
  if (tags === undefined) return false;
  for (const name in wanted) if (tags[name] !== wanted[name]) return false;
  return true;
}
