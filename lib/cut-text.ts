/**
 * The one way gw keeps a string a client chose (a model name, a stop sequence) where it
 * keeps or exports it (spans, the request log, log lines, alerts): at most a bound, and
 * visibly cut past it. The cut value is its first `maxChars` characters followed by
 * CUT_MARK; where it is recorded a flag says which fields were cut (a span's `gw.truncated`,
 * a request-log entry's `truncated`), since a value may end in `…` of its own.
 */

/** What a cut value ends with (U+2026). */
export const CUT_MARK = '…';

/**
 * `text` itself when it has at most `maxChars` UTF-16 code units, else its first `maxChars`
 * (one fewer when that would split a surrogate pair) followed by CUT_MARK, in a string of
 * its own. A length check and nothing else for a value within the bound.
 */
export function cutText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const last = text.charCodeAt(maxChars - 1);
  const end = last >= 0xd800 && last <= 0xdbff ? maxChars - 1 : maxChars;
  // a copy: V8's slice of a long string is a view that keeps the whole of it alive (a
  // megabyte model name held by its 257-character cut)
  return Buffer.from(text.slice(0, end) + CUT_MARK, 'utf16le').toString('utf16le');
}
