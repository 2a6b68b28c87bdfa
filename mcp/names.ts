/**
 * Namespacing (docs/mcp.md "Names"): a tool or prompt of server `fs` is `fs__<name>` to a
 * client of `/mcp`, split back on the first `__` (a server name never holds `__`, so a tool
 * named `a__b` stays whole). A full name always fits `^[A-Za-z0-9_-]{1,max}$`, what model APIs
 * accept for a function name: one that would not (a character outside the set, or too long) is
 * the server prefix, the name with every other character as `_`, cut to fit, then `_` and
 * eight hex digits of the SHA-256 of the server's own name. Stable across restarts and
 * instances; the console shows both names.
 */
import { createHash } from 'node:crypto';

export const SEPARATOR = '__';
/** What a full name may hold. */
const VALID = /^[A-Za-z0-9_-]+$/;
const INVALID_CHAR = /[^A-Za-z0-9_-]/g;
const HASH_HEX = 8;

/** The full name of `own` (a tool or prompt of `server`), at most `max` characters. */
export function fullName(server: string, own: string, max: number): string {
  const plain = server + SEPARATOR + own;
  if (plain.length <= max && own.length > 0 && VALID.test(own)) return plain;
  const hash = createHash('sha256').update(own).digest('hex').slice(0, HASH_HEX);
  const room = Math.max(0, max - plain.length + own.length - HASH_HEX - 1);
  return `${server}${SEPARATOR}${own.replace(INVALID_CHAR, '_').slice(0, room)}_${hash}`;
}

/** `[server, rest]` of a full name, split on the first `__`; undefined when it has none. */
export function splitName(full: string): [string, string] | undefined {
  const at = full.indexOf(SEPARATOR);
  return at <= 0 ? undefined : [full.slice(0, at), full.slice(at + SEPARATOR.length)];
}
