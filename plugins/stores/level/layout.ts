/** Where the LevelDB store keeps each kind of data: values under their key, the rest in `\u0001` spaces (before every namespace). */

/** TTL entries are stored as `\u0000<expiresAtMs>\u0000<value>` so plain values need no envelope. */
export const TTL_MARK = '\u0000';
/**
 * An empty string as stored: classic-level 3.0.0 leaks a native allocation per empty value
 * (docs/benchmarks.md#longer-soaks-and-a-leak-found-by-one); a lone mark is no TTL envelope.
 */
export const EMPTY = TTL_MARK;
/** Window entries live outside every namespace's key range: `\u0001w\u0000<ns key>\u0000<seq>`. */
export const WINDOW_SPACE = '\u0001w\u0000';
/** Bucket records: `\u0001b\u0000<ns key>\u0000<start>\u0000<series>`, bucket starts in key order. */
export const BUCKET_SPACE = '\u0001b\u0000';
/** Ring values: `\u0001r\u0000<ns key>\u0000<seq>`. */
export const RING_SPACE = '\u0001r\u0000';
/** Expiry index `\u0001e\u0000<expiresAt>\u0000<key>` beside every TTL value: the sweep reads only what expired. */
export const EXPIRY_SPACE = '\u0001e\u0000';
/** Present once every TTL value on disk has its expiry index entry (older stores are indexed once, at open). */
export const EXPIRY_INDEXED = '\u0001m\u0000expiry-index';
/** The key ranges of values and counters: everything but the `\u0001` spaces. */
export const VALUE_SPACE = [{ lt: '\u0001' }, { gte: '\u0002' }];

/** A number as a fixed-width decimal, so key order is numeric order (epoch ms and sequence numbers). */
export const pad = (n: number): string => String(n).padStart(16, '0');
/** Epoch ms in a window entry's key: fixed-width base 36, so key order is time order. */
export const windowTime = (ms: number): string => ms.toString(36).padStart(9, '0');

/** The expiry index entry of `key` (a TTL value) expiring at `expiresAt` (epoch ms). */
export const expiryKey = (expiresAt: number, key: string): string => `${EXPIRY_SPACE}${windowTime(expiresAt)}\u0000${key}`;
/** Where the key starts in an expiry index entry: the space, 9 characters of time, a separator. */
export const EXPIRY_KEY_AT = EXPIRY_SPACE.length + 10;

/** The expiry (epoch ms) of a TTL envelope `\0<expiresAt>\0<value>`; `end`: the second mark. */
export function expiryOf(raw: string, end = raw.indexOf(TTL_MARK, 1)): number {
  return Number(raw.slice(1, end));
}

/** A value as read from disk: EMPTY as '', a TTL value's own value or undefined once expired. */
export function decode(raw: string, now: number): string | undefined {
  if (raw.charCodeAt(0) !== 0) return raw;
  if (raw.length === 1) return '';
  const end = raw.indexOf(TTL_MARK, 1);
  return expiryOf(raw, end) > now ? raw.slice(end + 1) : undefined;
}
