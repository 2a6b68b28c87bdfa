/**
 * Turns of the event loop between the phases of a large request. Parsing, validating,
 * translating and serializing a body are each linear in its size, but one request's phases
 * otherwise run as one unbroken task (awaiting settled promises lets no I/O in): with a
 * 3 MB body that is hundreds of milliseconds in which no other request, not even /health,
 * is answered. Yielding between them lets other work take turns; a small body (nearly every
 * request) does not yield, and pays nothing.
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
