/**
 * Reading a parsed wire value without trusting its shape: what every content reader does
 * field by field. A value of the wrong type reads as absent, never as an error.
 */

const NO_ITEMS: readonly never[] = Object.freeze([]);

/** `value` when it is an array, else an empty one (shared, frozen). */
export function listOf(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : NO_ITEMS;
}

/** `value` when it is a non-empty string (an id, a model, a finish reason), else undefined. */
export function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** `value` when it is a finite number, else undefined. */
export function numberOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}
