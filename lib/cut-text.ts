/** A client's string kept at most `maxChars` long, visibly cut (CUT_MARK); where it is kept a flag says it was cut. */

/** What a cut value ends with (U+2026). */
export const CUT_MARK = '…';

/** `text`, or its first `maxChars` code units (no split surrogate) and CUT_MARK as a string of its own. */
export function cutText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const last = text.charCodeAt(maxChars - 1);
  const end = last >= 0xd800 && last <= 0xdbff ? maxChars - 1 : maxChars;
  // a copy: V8's slice of a long string is a view that keeps the whole of it alive (a
  // megabyte model name held by its 257-character cut)
  return Buffer.from(text.slice(0, end) + CUT_MARK, 'utf16le').toString('utf16le');
}
