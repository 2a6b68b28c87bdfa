/** Narrowing JSON values read off the wire, once for every translator. */

/** True for a JSON object: not null, not an array. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
