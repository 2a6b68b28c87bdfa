/**
 * What every local check runs: a detector finds ranges of a string and says how much of a
 * string's end a stream must still hold back because a match may be in progress there.
 */

/** One finding: `text.slice(start, end)` (UTF-16 offsets) is a value of type `entity` (`email`, `aws-access-key`…). */
export interface Match {
  readonly start: number;
  readonly end: number;
  readonly entity: string;
}

/** A local, synchronous detector: pure, linear in the text's length, never keeps the text. */
export interface Detector {
  /** Every match in `text`, ordered by start; matches may overlap (the engine keeps the first, longest one). */
  find(text: string): Match[];
  /**
   * The offset from which `text`'s end may be the start of a match not complete yet (the
   * stream window holds that much back); `text.length` when nothing can be in progress.
   */
  pending(text: string): number;
}

/**
 * Where the run of characters that `inRun` accepts, ending at `text`'s end, starts: at most
 * `max` characters back (a match is never longer), `text.length` when the last character is
 * outside the run.
 */
export function trailingRun(text: string, inRun: (code: number) => boolean, max: number): number {
  const stop = Math.max(0, text.length - max);
  let at = text.length;
  while (at > stop && inRun(text.charCodeAt(at - 1))) at--;
  return at;
}

/** Matches of `a` and `b`, merged in order of start (each already ordered). */
export function mergeMatches(a: Match[], b: Match[]): Match[] {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  const out: Match[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i]!.start <= b[j]!.start)) out.push(a[i++]!);
    else out.push(b[j++]!);
  }
  return out;
}
