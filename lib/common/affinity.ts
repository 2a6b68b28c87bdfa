/**
 * What a client format reads from a request to name its conversation, for prompt-cache
 * affinity (lib/resilience/affinity.ts): an id the client sent for it, or else its leading
 * messages — the part every turn of a conversation repeats and a prompt cache keys on.
 * Both are plain strings; the kernel hashes them with the gateway key and the model.
 */

/** Characters of a text kept from each end: the bound on what one request hashes. */
const EDGE = 256;
/** Content parts looked at from each end of a message. */
const MAX_PARTS = 64;

/** An explicit conversation id the client sent in `field` (`prompt_cache_key`, `metadata.user_id`, `user`), or undefined unless a non-empty string. */
export function affinityId(field: string, value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? `${field}\0${value}` : undefined;
}

/**
 * A conversation named by its leading messages: the system prompt and the first user turn,
 * each a string or an array of parts whose `text` is read (chat, Messages, Responses and
 * Gemini parts alike). Bounded: the first and last 256 characters of each, over at most
 * 64 parts from each end, so a long prompt costs what a short one does and two turns of
 * one conversation name it alike. undefined when both have no text.
 */
export function affinityPrefix(system: unknown, firstUser: unknown): string | undefined {
  const s = edges(system);
  const u = edges(firstUser);
  return s === '' && u === '' ? undefined : `prefix\0${s}\0${u}`;
}

/** Messages looked at for a leading one: a conversation's system prompt and first user turn come first. */
const LEADING = 16;

/**
 * The `field` (default `content`) of the first of a conversation's first 16 messages whose
 * `role` is `role` (with `roleless`, also one without a role: Gemini's user turns), or
 * undefined. For `affinityPrefix`.
 */
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
