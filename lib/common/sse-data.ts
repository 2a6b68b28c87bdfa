/**
 * An upstream SSE event's data, checked one way on every stream path: blank data is skipped;
 * data that is not a JSON object is 502 `upstream_malformed`. Where gw does not parse an event
 * it checks the framing only ({@link objectFramed}, O(1)); a stream's first event is always parsed.
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

/** A stream's first event parsed: the error to throw inside dispatch when malformed (blank data passes). */
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
