/**
 * Token estimates where no upstream counts: `count_tokens`/`countTokens` on a kind without
 * a counting endpoint, and what a stream that ended early had sent. Not a tokenizer: about
 * 4 UTF-8 bytes a token for English and code, fewer for CJK (so CJK is under-counted by
 * up to ~25%); good enough for context-window checks and early-end charges, and labelled
 * an estimate wherever it is shown.
 */

/** Estimated tokens of a text (UTF-8 bytes / 4, rounded up). */
export function estimateTextTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / 4);
}

/**
 * Estimated prompt tokens of a request's content: the text of every string in `value`
 * (messages, system, tools' schemas…), plus 3 per message-like object for the framing.
 */
export function estimateTokens(value: unknown): number {
  let bytes = 0;
  let objects = 0;
  const walk = (v: unknown, depth: number): void => {
    if (depth > 64) return;
    if (typeof v === 'string') bytes += Buffer.byteLength(v, 'utf8');
    else if (Array.isArray(v)) for (const x of v) walk(x, depth + 1);
    else if (typeof v === 'object' && v !== null) {
      objects++;
      for (const [k, x] of Object.entries(v)) {
        bytes += k.length;
        walk(x, depth + 1);
      }
    }
  };
  walk(value, 0);
  return Math.ceil(bytes / 4) + 3 * objects;
}
