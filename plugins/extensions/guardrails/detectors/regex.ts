/**
 * An operator's patterns, run by RE2 (`re2-wasm`: Google's RE2 compiled to WebAssembly): time
 * linear in the text for any pattern, `(a+)+$` included, and no backreference or lookaround
 * (RE2 refuses them when the config loads). JavaScript's own engine backtracks, so it never
 * runs an operator's pattern.
 *
 * re2-wasm copies its whole input into WebAssembly memory on every call, and answers offsets
 * in code points: the text is searched in segments of {@link SEGMENT} characters (plus the
 * longest match, so none is cut), each copied once per match found in it, and offsets are
 * mapped back to UTF-16.
 */
import { RE2 } from 're2-wasm';
import type { Detector, Match } from '../detector.ts';

/** Characters searched per call. */
const SEGMENT = 4096;
/** Matches kept per text: a pattern that matches everywhere (`.`) is a config mistake, not a reason to copy the text once per character. */
const MAX_MATCHES = 10_000;

/** A compiled `regex` check's settings. */
export interface RegexOptions {
  readonly patterns: readonly string[];
  /** What a match is called (`ticket_id`). */
  readonly entity: string;
  /** Longest match, characters. */
  readonly maxLength: number;
}

/**
 * Compiles every pattern (Unicode, case as written).
 * @throws Error naming the pattern's index and RE2's reason, for a pattern RE2 refuses
 */
export function regexDetector(options: RegexOptions): Detector {
  const compiled = options.patterns.map((pattern, i) => {
    try {
      return new RE2(pattern, 'gu');
    } catch (err) {
      throw new Error(`patterns[${i}]: ${(err as Error).message.replace(/^Invalid regular expression: /, '')} (RE2 syntax: no backreferences or lookaround)`);
    }
  });
  const { entity, maxLength } = options;
  return {
    find(text) {
      const out: Match[] = [];
      for (const re of compiled) {
        const found: Match[] = [];
        searchAll(re, text, maxLength, entity, found);
        for (const m of found) out.push(m);
      }
      if (compiled.length > 1) out.sort((a, b) => a.start - b.start || b.end - a.end);
      return out;
    },
    pending(text) {
      return Math.max(0, text.length - maxLength);
    },
  };
}

/**
 * Every match of `re` in `text`, in order. Segment `[from, from + SEGMENT)` is searched in
 * `text[from - 1, from + SEGMENT + maxLength + 1)` (one character before, for `\b`), keeping
 * matches that start inside it and end before the slice does (unless the slice ends the text),
 * so `^`, `$` and a match cut by the slice never count.
 */
function searchAll(re: RE2, text: string, maxLength: number, entity: string, out: Match[]): void {
  for (let from = 0; from < text.length && out.length < MAX_MATCHES; from += SEGMENT) {
    const sliceStart = from === 0 ? 0 : from - 1;
    const sliceEnd = Math.min(text.length, from + SEGMENT + maxLength + 1);
    const slice = text.slice(sliceStart, sliceEnd);
    const offsets = new CodePointOffsets(slice);
    re.lastIndex = 0;
    for (let m = re.exec(slice); m !== null && out.length < MAX_MATCHES; m = re.exec(slice)) {
      const start = sliceStart + offsets.utf16(m.index);
      const end = start + (m[0]?.length ?? 0);
      if (m[0] === '') re.lastIndex++;
      if (start < from) continue;
      if (start >= from + SEGMENT) break;
      if (end === start || (end >= sliceEnd && sliceEnd < text.length)) continue;
      out.push({ start, end, entity });
    }
  }
}

/** Code-point offsets of a string to UTF-16 offsets, read in increasing order (a cursor: linear over all reads). */
class CodePointOffsets {
  private readonly text: string;
  private readonly plain: boolean;
  private points = 0;
  private units = 0;

  constructor(text: string) {
    this.text = text;
    this.plain = !/[\uD800-\uDBFF]/.test(text);
  }

  utf16(codePoints: number): number {
    if (this.plain) return codePoints;
    if (codePoints < this.points) {
      this.points = 0;
      this.units = 0;
    }
    while (this.points < codePoints && this.units < this.text.length) {
      const code = this.text.charCodeAt(this.units);
      this.units += code >= 0xd800 && code <= 0xdbff ? 2 : 1;
      this.points++;
    }
    return this.units;
  }
}
