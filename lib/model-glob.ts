/**
 * Virtual keys' model patterns: `*` matches any run of characters, case-sensitive, whole id;
 * compiled once per key, matched without a regular expression (a client's id cannot backtrack it).
 */

/** True when a key may call `model` (a canonical id). */
export type ModelMatcher = (model: string) => boolean;

/** Matches every model: a key without `models`. */
export const ALLOW_ALL: ModelMatcher = () => true;

/**
 * One matcher for a list of patterns: exact ids in a Set, `prefix*` and `*suffix` as
 * startsWith/endsWith, anything else by the general wildcard walk.
 */
export function compileModelPatterns(patterns: readonly string[]): ModelMatcher {
  if (patterns.includes('*')) return ALLOW_ALL;
  const exact = new Set<string>();
  const prefixes: string[] = [];
  const suffixes: string[] = [];
  const general: string[] = [];
  for (const p of patterns) {
    const star = p.indexOf('*');
    if (star < 0) exact.add(p);
    else if (star === p.length - 1) prefixes.push(p.slice(0, -1));
    else if (star === 0 && p.indexOf('*', 1) < 0) suffixes.push(p.slice(1));
    else general.push(p);
  }
  if (prefixes.length === 0 && suffixes.length === 0 && general.length === 0) return (m) => exact.has(m);
  return (m) => {
    if (exact.has(m)) return true;
    for (let i = 0; i < prefixes.length; i++) if (m.startsWith(prefixes[i]!)) return true;
    for (let i = 0; i < suffixes.length; i++) if (m.endsWith(suffixes[i]!)) return true;
    for (let i = 0; i < general.length; i++) if (globMatch(general[i]!, m)) return true;
    return false;
  };
}

/** Whole-string `*` match: the greedy walk retrying from the last `*`, O(pattern × text), no recursion. */
export function globMatch(pattern: string, text: string): boolean {
  let p = 0;
  let t = 0;
  let star = -1;
  let mark = 0;
  while (t < text.length) {
    if (p < pattern.length && pattern.charCodeAt(p) !== 42 /* * */ && pattern.charCodeAt(p) === text.charCodeAt(t)) {
      p++;
      t++;
    } else if (p < pattern.length && pattern.charCodeAt(p) === 42) {
      star = p++;
      mark = t;
    } else if (star >= 0) {
      p = star + 1;
      t = ++mark;
    } else return false;
  }
  while (p < pattern.length && pattern.charCodeAt(p) === 42) p++;
  return p === pattern.length;
}
