/**
 * The data of an upstream SSE event, checked the same way on every stream path (each
 * provider's stream reading, each format's native passthrough). Every vendor stream gw reads
 * carries one JSON object per event (plus `[DONE]` on the common format), so:
 *
 *   - data that is empty or only whitespace is no event: skipped (never forwarded);
 *   - data that is not a JSON object (`{not json`, `[1,2,3]`, `null`, `42`) is malformed:
 *     502 `upstream_malformed` naming the provider. Before the stream's first byte that is
 *     a failure dispatch retries or fails over like any other; after it, the format's one
 *     error event, then the end (and an upstream error of the provider).
 *
 * Lines that are not SSE fields (a line without a colon, an unknown field name) are not
 * events at all: the SSE specification has every reader ignore them, and gw does too
 * (lib/http/sse-parse.ts), on every path.
 *
 * Where gw parses an event it checks the parsed value; where it forwards an event without
 * parsing it (passthroughs, common-format chunks no hook reads) it checks the framing only
 * ({@link objectFramed}: first and last non-blank characters `{` and `}`, O(1)), since a
 * parse per chunk would cost more than the rest of gw's work on it. The first event of a
 * stream is always parsed (upstream-calls.ts), so a stream that starts malformed is retried.
 */
import { UPSTREAM_MALFORMED } from '../http/errors.ts';
import type { GatewayError } from '../../core/errors.ts';

/** True for data that is empty or only whitespace (no event). */
export function isBlank(data: string): boolean {
  for (let i = 0; i < data.length; i++) {
    const c = data.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) return false;
  }
  return true;
}

/** True when `data` is framed as a JSON object: its first and last non-blank characters are `{` and `}`. Not a parse. */
export function objectFramed(data: string): boolean {
  let i = 0;
  let j = data.length - 1;
  let c = data.charCodeAt(i);
  while (c === 32 || c === 9 || c === 10 || c === 13) c = data.charCodeAt(++i);
  let d = data.charCodeAt(j);
  while (j > i && (d === 32 || d === 9 || d === 10 || d === 13)) d = data.charCodeAt(--j);
  return c === 123 && d === 125 && j > i;
}

/** 502 `upstream_malformed`: `provider` sent event data that is not what its stream carries. */
export function malformedEvent(provider: string, data: string, what = 'a stream event that is not a JSON object'): GatewayError {
  return UPSTREAM_MALFORMED({ provider, what: `${what}: ${data.slice(0, 200)}` }, { provider });
}

/**
 * The event's data parsed as a JSON object.
 * @throws GatewayError 502 `upstream_malformed` when it is not one (bad JSON, an array, null…).
 */
export function parseEventObject<T = Record<string, unknown>>(data: string, provider: string, what?: string): T {
  let v: unknown;
  try {
    v = JSON.parse(data);
  } catch {
    throw malformedEvent(provider, data, what);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw malformedEvent(provider, data, what);
  return v as T;
}

/**
 * The check of a stream's first event, which decides whether the stream starts at all: its
 * data parsed (one parse per stream), a malformed one is the error to throw inside dispatch.
 * Blank data passes (it is skipped later).
 */
export function malformedFirst(data: string, provider: string): GatewayError | undefined {
  if (isBlank(data)) return undefined;
  try {
    parseEventObject(data, provider);
    return undefined;
  } catch (err) {
    return err as GatewayError;
  }
}

/** What an error event's data holds: the JSON value (its `error` member with `member`), else `{message}` of the text's start. */
export function errorPayload(data: string, member?: 'error'): unknown {
  try {
    const value = JSON.parse(data) as { error?: unknown } | null;
    return member === undefined ? value : value?.error;
  } catch {
    return { message: data.slice(0, 200) };
  }
}
