/**
 * Canonical JSON: keys sorted by code point at every level, no whitespace, numbers and
 * strings as JSON.stringify writes them. Two bodies that mean the same (key order, spacing)
 * have one canonical text, and so one hash: what `match = "exact"` compares.
 */
import { createHash } from 'node:crypto';

/** `value` as canonical JSON text (undefined members dropped, as JSON.stringify does). */
export function canonicalJson(value: unknown): string {
  const parts: string[] = [];
  write(value, parts);
  return parts.join('');
}

function write(value: unknown, out: string[]): void {
  if (value === null || typeof value !== 'object') {
    out.push(JSON.stringify(value) ?? 'null');
    return;
  }
  if (Array.isArray(value)) {
    out.push('[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.push(',');
      const item = value[i];
      write(item === undefined || typeof item === 'function' ? null : item, out);
    }
    out.push(']');
    return;
  }
  const keys = Object.keys(value).sort();
  out.push('{');
  let first = true;
  for (const k of keys) {
    const v = (value as Record<string, unknown>)[k];
    if (v === undefined || typeof v === 'function') continue;
    if (!first) out.push(',');
    first = false;
    out.push(JSON.stringify(k), ':');
    write(v, out);
  }
  out.push('}');
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
 * A request body as the cassette keeps it: JSON parsed back from its scrubbed canonical text
 * (a non-JSON body as its scrubbed text, none as null), and the hash of that text.
 */
export function canonicalBody(raw: string | undefined, scrub: (text: string) => string): { body: unknown; text: string; hash: string } {
  if (raw === undefined || raw === '') return { body: null, text: '', hash: hashOf('') };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    const text = scrub(raw);
    return { body: text, text, hash: hashOf(text) };
  }
  const text = scrub(canonicalJson(parsed));
  return { body: JSON.parse(text), text, hash: hashOf(text) };
}
