/**
 * Canonical JSON: keys sorted by code point at every level, no whitespace, numbers and
 * strings as JSON.stringify writes them. Two bodies that mean the same (key order, spacing)
 * have one canonical text, and so one hash: what `match = "exact"` compares.
 */
import { createHash } from 'node:crypto';

/** `value` as canonical JSON text (undefined members dropped, as JSON.stringify does). */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  // string concatenation, not parts joined: V8 builds ropes, and there is no array per level
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      out += `${i > 0 ? ',' : ''}${item === undefined || typeof item === 'function' ? 'null' : canonicalJson(item)}`;
    }
    return `${out}]`;
  }
  const keys = Object.keys(value);
  if (keys.length > 1) keys.sort();
  let out = '{';
  for (const k of keys) {
    const v = (value as Record<string, unknown>)[k];
    if (v === undefined || typeof v === 'function') continue;
    out += `${out.length > 1 ? ',' : ''}${JSON.stringify(k)}:${canonicalJson(v)}`;
  }
  return `${out}}`;
}

/** `sha256:` + the hex SHA-256 of `text`. */
export function hashOf(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

/** The text a kept body is hashed by: none → '', a non-JSON body its text, JSON its canonical text. */
export function bodyText(body: unknown): string {
  return body === null || body === undefined ? '' : typeof body === 'string' ? body : canonicalJson(body);
}

/**
 * A request body's text as the cassette keeps it: canonical JSON, scrubbed (a non-JSON body
 * its scrubbed text; none → ''). What the matcher compares; parse it back for the value.
 */
export function canonicalText(raw: string | undefined, scrub: (text: string) => string): string {
  if (raw === undefined || raw === '') return '';
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return scrub(raw);
  }
  return scrub(canonicalJson(parsed));
}

/** A request body as an entry keeps it: the value of its canonical text, that text and its hash. */
export function canonicalBody(raw: string | undefined, scrub: (text: string) => string): { body: unknown; text: string; hash: string } {
  const text = canonicalText(raw, scrub);
  return { body: parseKept(text), text, hash: hashOf(text) };
}

/** A kept body's text back to its value: none → null, a non-JSON body stays text. */
export function parseKept(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
