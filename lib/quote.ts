/**
 * How much of a client's value an error message quotes: a model id, a name from the URL or a
 * query value is the client's and may be megabytes, so each is cut to 200 characters where
 * errors are made (core/errors.ts `defineError`, core/error-codes.ts `quoted`).
 */

/** Longest quote of a client's value in an error message, characters. */
export const QUOTE_MAX = 200;

/** `s` cut to `max` (QUOTE_MAX) characters, never between the halves of a surrogate pair, the cut marked with `…`. */
export function clip(s: string, max = QUOTE_MAX): string {
  if (s.length <= max) return s;
  const end = (s.charCodeAt(max - 1) & 0xfc00) === 0xd800 ? max - 1 : max;
  return `${s.slice(0, end)}…`;
}

/** `params` with every string field (and string in an array field) not in `keep` cut by {@link clip}; the same object when none needs it. */
export function clipParams<P>(params: P, keep: ReadonlyArray<string> | undefined): P {
  if (params === null || typeof params !== 'object' || Array.isArray(params)) return params;
  let out: Record<string, unknown> | undefined;
  for (const [name, v] of Object.entries(params)) {
    if (keep?.includes(name)) continue;
    const cut =
      typeof v === 'string'
        ? clip(v)
        : Array.isArray(v) && v.some((x) => typeof x === 'string' && x.length > QUOTE_MAX)
          ? v.map((x) => (typeof x === 'string' ? clip(x) : x))
          : v;
    if (cut !== v) (out ??= { ...(params as Record<string, unknown>) })[name] = cut;
  }
  return (out ?? params) as P;
}
