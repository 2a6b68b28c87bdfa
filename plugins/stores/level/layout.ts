/**
 * Where the LevelDB store keeps each kind of data, and how a value is encoded. Values and
 * counters live under their namespaced key; windows, buckets, rings and the expiry index
 * live in spaces whose keys start with U+0001, which sorts before every printable key, so
 * they stay outside every namespace's key range.
 */

/** TTL entries are stored as `\u0000<expiresAtMs>\u0000<value>` so plain values need no envelope. */
export const TTL_MARK = '\u0000';
/**
 * What an empty string is stored as: LevelDB is never handed an empty value. classic-level
 * 3.0.0 leaks a native allocation for every empty key or value it is given (binding.cc:
 * `ToSlice` copies into `new char[size + 1]`, `DisposeSliceBuffer` frees only non-empty
 * slices), and every TTL value has an index entry: that was 8 bytes per cache write, ~1 MiB
 * of RSS a minute at 1,700 req/s, never returned. A lone mark is no TTL envelope (that needs
 * two), so nothing else reads as it.
 */
export const EMPTY = TTL_MARK;
/** Window entries live outside every namespace's key range: `\u0001w\u0000<ns key>\u0000<seq>`. */
export const WINDOW_SPACE = '\u0001w\u0000';
/** Bucket records: `\u0001b\u0000<ns key>\u0000<start>\u0000<series>`, bucket starts in key order. */
export const BUCKET_SPACE = '\u0001b\u0000';
/** Ring values: `\u0001r\u0000<ns key>\u0000<seq>`. */
export const RING_SPACE = '\u0001r\u0000';
/**
 * Expiry index: `\u0001e\u0000<expiresAt, windowTime>\u0000<key>` → EMPTY beside every TTL value, so
 * the sweep reads only the entries that expired, not the whole store.
 */
export const EXPIRY_SPACE = '\u0001e\u0000';
/**
 * Present once every TTL value on disk has its expiry index entry: stores from before the
 * index are indexed once, at open. (A value written meanwhile by an older gw has no entry:
 * the scan at the next open deletes it once expired.)
 */
export const EXPIRY_INDEXED = '\u0001m\u0000expiry-index';
/**
 * The key ranges of values and counters: everything but the `\u0001` spaces (windows,
 * buckets, rings), which sort before every printable key.
 */
export const VALUE_SPACE = [{ lt: '\u0001' }, { gte: '\u0002' }];

/** A number as a fixed-width decimal, so key order is numeric order (epoch ms and sequence numbers). */
export const pad = (n: number): string => String(n).padStart(16, '0');
/** Epoch ms in a window entry's key: fixed-width base 36, so key order is time order. */
export const windowTime = (ms: number): string => ms.toString(36).padStart(9, '0');

/** The expiry index entry of `key` (a TTL value) expiring at `expiresAt` (epoch ms). */
export const expiryKey = (expiresAt: number, key: string): string => `${EXPIRY_SPACE}${windowTime(expiresAt)}\u0000${key}`;
/** Where the key starts in an expiry index entry: the space, 9 characters of time, a separator. */
export const EXPIRY_KEY_AT = EXPIRY_SPACE.length + 10;

/**
 * The expiry (epoch ms) of a TTL value's envelope, `\0<expiresAt>\0<value>` (the caller checked
 * the leading mark); `end` is where the second mark is.
 */
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
