/**
 * What a client chose, as gw's spans keep it (docs/opentelemetry.md "Bounds"): a string past
 * its bound is kept cut (its first characters, then `…`, gw/plugin's cutText) and its
 * attribute is named in the span's `gw.truncated`, a list of attribute names.
 */
import type { Attributes } from '@opentelemetry/api';
import { cutText } from 'gw/plugin';

/** The attribute listing a span's attributes whose value was cut. */
export const TRUNCATED = 'gw.truncated';

/** A stop sequence is kept to this many characters, and a request's first STOP_SEQUENCES_MAX of them. */
export const STOP_SEQUENCE_MAX_CHARS = 256;
export const STOP_SEQUENCES_MAX = 16;
/** A span's status message (gw's log-safe error message, an upstream's text) is kept to this many characters. */
export const STATUS_MESSAGE_MAX_CHARS = 1024;

/** Sets `a[key]` to `value` cut to `max` characters; a cut one is named in `gw.truncated`. */
export function setBounded(a: Attributes, key: string, value: string, max: number): void {
  if (value.length <= max) a[key] = value;
  else {
    a[key] = cutText(value, max);
    markCut(a, key);
  }
}

/** Names `key` in `a`'s `gw.truncated`. */
export function markCut(a: Attributes, key: string): void {
  const cut = a[TRUNCATED];
  if (Array.isArray(cut)) (cut as string[]).push(key);
  else a[TRUNCATED] = [key];
}
