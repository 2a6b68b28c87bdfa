/**
 * Turns of the event loop between the phases of a large request, so other requests are
 * answered meanwhile; a small body does not yield. why: docs/benchmarks.md#turns-between-phases
 */
import { setImmediate } from 'node:timers/promises';

/** A request body at least this long (UTF-16 code units of its text) yields between phases. */
export const LARGE_BODY_CHARS = 256 * 1024;

/** True for a request body's text of {@link LARGE_BODY_CHARS} or more. */
export function isLarge(raw: string): boolean {
  return raw.length >= LARGE_BODY_CHARS;
}

/** One turn of the event loop: pending I/O (other requests) runs first. */
export function nextTurn(): Promise<void> {
  return setImmediate();
}

/** {@link nextTurn} when `raw`, a request body's text, is large; else nothing to wait for. */
export function yieldIfLarge(raw: string): Promise<void> | undefined {
  return isLarge(raw) ? setImmediate() : undefined;
}
