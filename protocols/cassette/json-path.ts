/**
 * JSON paths for `ignore` (parts of a request left out of the match) and for naming where two
 * bodies differ. Syntax: member names joined by dots, `*` for any member or item, `[n]` or
 * `.n` for an item, `[*]` for any item: `temperature`, `metadata.*`, `messages[*].content`,
 * `messages[0]`, `tools.*.function.description`.
 */

/** One step of a path: a member name, an item index, or any. */
type Step = { key: string } | { index: number } | { any: true };

/** A compiled path. */
export interface JsonPath {
  readonly text: string;
  readonly steps: readonly Step[];
}

/**
 * Compiles a path.
 * @throws Error naming the path and what is wrong with it.
 */
export function compilePath(text: string): JsonPath {
  const steps: Step[] = [];
  const re = /\[(\d+|\*)\]|\.?([^.[\]]+)/gy;
  let at = 0;
  if (text.trim() === '') throw new Error('an empty JSON path');
  while (at < text.length) {
    re.lastIndex = at;
    const m = re.exec(text);
    if (!m || (m.index === 0 && text[0] === '.')) throw new Error(`JSON path '${text}': unexpected '${text.slice(at, at + 10)}' at ${at}`);
    const part = m[1] ?? m[2]!;
    if (part === '*') steps.push({ any: true });
    else if (m[1] !== undefined || /^\d+$/.test(part)) steps.push({ index: Number(part) });
    else steps.push({ key: part });
    at = re.lastIndex;
  }
  return { text, steps };
}

/** Removes every member or item `path` matches from `value`, in place. Items are set aside, never shifted: `[0]` stays item 0. */
export function removePath(value: unknown, path: JsonPath): void {
  remove(value, path.steps, 0);
}

function remove(value: unknown, steps: readonly Step[], at: number): void {
  if (value === null || typeof value !== 'object') return;
  const step = steps[at]!;
  const last = at === steps.length - 1;
  if (Array.isArray(value)) {
    const indexes = 'any' in step ? value.keys() : 'index' in step && step.index < value.length ? [step.index] : [];
    for (const i of indexes) {
      if (last) value[i] = IGNORED;
      else remove(value[i], steps, at + 1);
    }
    return;
  }
  const record = value as Record<string, unknown>;
  const names = 'any' in step ? Object.keys(record) : 'key' in step ? [step.key] : 'index' in step ? [String(step.index)] : [];
  for (const name of names) {
    if (!Object.hasOwn(record, name)) continue;
    if (last) delete record[name];
    else remove(record[name], steps, at + 1);
  }
}

/** What an ignored array item becomes: the same placeholder on both sides, so later items keep their places. */
export const IGNORED = '(ignored)';

/** Where two values first differ (document order, keys sorted), and how many leaves differ. */
export interface Difference {
  /** `messages[1].content`; '' when the roots differ. */
  path: string;
  /** JSON of the value on each side, cut to 200 characters; `(absent)` when a side has none. */
  recorded: string;
  got: string;
  /** Leaves that differ (counted up to a cap). */
  count: number;
}

/** Most differing leaves counted: enough to rank candidates, bounded on huge bodies. */
const COUNT_CAP = 10_000;
/** Characters of a value a difference quotes. */
export const QUOTE_CHARS = 200;

/** The first difference between `recorded` and `got`, or undefined when they are equal. */
export function firstDifference(recorded: unknown, got: unknown): Difference | undefined {
  const state: { first?: { path: string; a: unknown; b: unknown; aHas: boolean; bHas: boolean }; count: number } = { count: 0 };
  compare(recorded, got, '', true, true, state);
  if (!state.first) return undefined;
  const f = state.first;
  if (f.aHas && f.bHas && typeof f.a === 'string' && typeof f.b === 'string') {
    // two long texts often share a long start: quote both from a little before where they part
    const [recorded, got] = quoteApart(f.a, f.b);
    return { path: f.path, recorded, got, count: state.count };
  }
  return { path: f.path, recorded: f.aHas ? quote(f.a) : '(absent)', got: f.bHas ? quote(f.b) : '(absent)', count: state.count };
}

/** Characters quoted before the first differing one. */
const LEAD = 40;

/** Two different strings as JSON, each cut to {@link QUOTE_CHARS} characters around where they first differ. */
export function quoteApart(a: string, b: string): [string, string] {
  let i = 0;
  while (i < a.length && i < b.length && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  const from = i > LEAD ? i - LEAD : 0;
  const cut = (text: string) => {
    const json = JSON.stringify(text.slice(from));
    const body = json.length > QUOTE_CHARS ? `${json.slice(0, QUOTE_CHARS)}…` : json;
    return from > 0 ? `…${body}` : body;
  };
  return [cut(a), cut(b)];
}

function compare(
  a: unknown,
  b: unknown,
  path: string,
  aHas: boolean,
  bHas: boolean,
  state: { first?: { path: string; a: unknown; b: unknown; aHas: boolean; bHas: boolean }; count: number },
): void {
  if (state.count >= COUNT_CAP) return;
  const aObj = aHas && a !== null && typeof a === 'object';
  const bObj = bHas && b !== null && typeof b === 'object';
  if (aObj && bObj && Array.isArray(a) === Array.isArray(b)) {
    if (Array.isArray(a)) {
      const bb = b as unknown[];
      for (let i = 0; i < Math.max(a.length, bb.length); i++) compare(a[i], bb[i], `${path}[${i}]`, i < a.length, i < bb.length, state);
      return;
    }
    const ar = a as Record<string, unknown>;
    const br = b as Record<string, unknown>;
    const keys = [...new Set([...Object.keys(ar), ...Object.keys(br)])].sort();
    for (const k of keys) compare(ar[k], br[k], path ? `${path}.${k}` : k, Object.hasOwn(ar, k), Object.hasOwn(br, k), state);
    return;
  }
  if (aHas === bHas && (a === b || (aObj && bObj && JSON.stringify(a) === JSON.stringify(b)))) return;
  state.count++;
  state.first ??= { path, a, b, aHas, bHas };
}

/** JSON of a value, cut to {@link QUOTE_CHARS} characters. */
export function quote(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > QUOTE_CHARS ? `${text.slice(0, QUOTE_CHARS)}…` : text;
}
