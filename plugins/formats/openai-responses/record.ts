/**
 * A stored response's text in the store: the record as JSON, with the size of its items
 * beside it, so the size of a conversation is known from its last record without reading or
 * serializing its history. Records written before sizes were kept stay readable (their size
 * is measured when needed); a record that is not what gw wrote is reported, never thrown on.
 */
import type { ResponsesInputItem } from 'gw/plugin/openai-responses';
import { isObject } from 'gw/plugin';

/** One stored response. */
export interface StoredResponse {
  /** The Response object as the client got it (the upstream's own for a native answer). */
  response: { id: string; output?: unknown; [k: string]: unknown };
  /** The request's own `input`, as items (a string input is one user message). */
  input: ResponsesInputItem[];
  /** Ids of the responses this one continued, oldest first ([] when it started a conversation). */
  chain: string[];
  /** The provider that answered, and whether it answered natively (its own store then holds the response too). */
  provider: string;
  native: boolean;
  /**
   * UTF-8 bytes of its items (input, then output) as JSON, a comma after each: what it adds
   * to a request that carries the conversation in `input`. Absent in records written before
   * gw kept it.
   */
  size?: number;
  /** `size` summed over the conversation through this response; absent when an earlier size was unknown. */
  total?: number;
}

/** The output items of a stored response ([] when the upstream's `output` was not a list). */
export function outputItems(rec: StoredResponse): unknown[] {
  const o = rec.response.output;
  return Array.isArray(o) ? o : [];
}

/**
 * The record's text, with its `size` and, when `before` (the `total` of the conversation it
 * continues; 0 for a new one) is known, its `total`. One serialization of the record, and one
 * of the record without its items to tell their share.
 */
export function encodeRecord(rec: StoredResponse, before: number | undefined): string {
  const { size: _size, total: _total, ...plain } = rec;
  const whole = JSON.stringify(plain);
  const output = plain.response.output;
  const response = Array.isArray(output) ? { ...plain.response, output: [] } : plain.response;
  const envelope = JSON.stringify({ ...plain, input: [], response });
  // the arrays' contents hold a comma between items: one more each makes a comma after each
  const size = Buffer.byteLength(whole) - Buffer.byteLength(envelope) + nonEmpty(plain.input) + nonEmpty(output);
  const total = before === undefined ? '' : `,"total":${before + size}`;
  return `${whole.slice(0, -1)},"size":${size}${total}}`;
}

/**
 * The record in `text`, or undefined when it is not one gw wrote (not JSON, or a field of the
 * wrong shape: the response without a string id, input items that are not objects, chain ids
 * that are not strings). A `size` or `total` that is not a byte count is dropped (measured
 * again when needed). Linear in the record: a type check per item and chain id.
 */
export function decodeRecord(text: string): StoredResponse | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(v)) return undefined;
  const { response, input, chain } = v;
  if (!isObject(response) || typeof response.id !== 'string') return undefined;
  if (!Array.isArray(input) || !input.every(isObject)) return undefined;
  if (!Array.isArray(chain) || !chain.every((c) => typeof c === 'string')) return undefined;
  if (!isByteCount(v.size)) delete v.size;
  if (!isByteCount(v.total)) delete v.total;
  return v as unknown as StoredResponse;
}

function isByteCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

function nonEmpty(v: unknown): number {
  return Array.isArray(v) && v.length > 0 ? 1 : 0;
}

/** The record's `size`, measured from its items when the record predates sizes. */
export function sizeOf(rec: StoredResponse): number {
  if (rec.size !== undefined) return rec.size;
  return elementBytes(rec.input) + elementBytes(outputItems(rec));
}

/** UTF-8 bytes of `items` as JSON, a comma after each: the array's text less its brackets, plus the last comma. */
function elementBytes(items: unknown[]): number {
  return Buffer.byteLength(JSON.stringify(items)) - 2 + nonEmpty(items);
}
