/** What a client format reads to name a conversation for affinity: an id the client sent, or its leading messages. */

/** Characters of a text kept from each end: the bound on what one request hashes. */
const EDGE = 256;
/** Content parts looked at from each end of a message. */
const MAX_PARTS = 64;

/** An explicit conversation id the client sent in `field` (`prompt_cache_key`, `metadata.user_id`, `user`), or undefined unless a non-empty string. */
export function affinityId(field: string, value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? `${field}\0${value}` : undefined;
}

/** A conversation named by its system prompt and first user turn, bounded (256 characters, 64 parts from each end). */
export function affinityPrefix(system: unknown, firstUser: unknown): string | undefined {
  const s = edges(system);
  const u = edges(firstUser);
  return s === '' && u === '' ? undefined : `prefix\0${s}\0${u}`;
}

/** Messages looked at for a leading one: a conversation's system prompt and first user turn come first. */
const LEADING = 16;

/** The `field` of the first of the first 16 messages with `role` (or none, with `roleless`), for `affinityPrefix`. */
export function leadingContent(messages: unknown, role: string, field = 'content', roleless = false): unknown {
  if (!Array.isArray(messages)) return undefined;
  const n = Math.min(messages.length, LEADING);
  for (let i = 0; i < n; i++) {
    const m = messages[i] as Record<string, unknown> | null;
    if (m === null || typeof m !== 'object') continue;
    if (m.role === role || (roleless && m.role === undefined)) return m[field];
  }
  return undefined;
}

/** The text's first and last EDGE characters (the whole text when shorter than that). */
function edges(content: unknown): string {
  if (typeof content === 'string') return content.length <= 2 * EDGE ? content : `${content.slice(0, EDGE)}\0${content.slice(-EDGE)}`;
  if (!Array.isArray(content)) return '';
  const n = content.length;
  let head = '';
  let i = 0;
  for (; i < n && i < MAX_PARTS && head.length < EDGE; i++) {
    const t = textOf(content[i]);
    if (t !== undefined) head += t.length > EDGE - head.length ? t.slice(0, EDGE - head.length) : t;
  }
  if (i === n && head.length < EDGE) return head;
  let tail = '';
  for (let j = n - 1; j >= 0 && n - j <= MAX_PARTS && tail.length < EDGE; j--) {
    const t = textOf(content[j]);
    if (t !== undefined) tail = (t.length > EDGE - tail.length ? t.slice(t.length - (EDGE - tail.length)) : t) + tail;
  }
  return `${head}\0${tail}`;
}

function textOf(part: unknown): string | undefined {
  if (typeof part === 'string') return part;
  const t = (part as { text?: unknown } | null | undefined)?.text;
  return typeof t === 'string' ? t : undefined;
}
