/**
 * Stored responses (`store: true`, OpenAI's default), in the format's store namespace
 * (`format:openai-responses:`), so every instance on a shared Redis store sees them.
 *
 * One value per response and owner, `r:<response id>:<owner>` (the owner is the gateway
 * key's name, '' when the gateway runs open): a lookup with another key finds nothing, which
 * is the 404 the other key gets. Each record holds the response as answered, the request's
 * own input items (not the history it continued), the provider that served it, and the ids
 * of the responses it continued, oldest first, so a conversation's history is read in one
 * round of parallel gets instead of one get per turn. Records expire `ttl_days` after they
 * were written (each its own TTL: a conversation can be continued for `ttl_days` after its
 * first response).
 */
import type { Store } from '../../../core/store/types.ts';
import { CONVERSATION_TOO_LONG, RESPONSE_NOT_FOUND } from './errors.ts';
import type { ResponsesInputItem } from './types.ts';

/** Responses one conversation may chain through previous_response_id. */
export const MAX_CHAIN = 1000;

/** One stored response. */
export interface StoredResponse {
  /** The Response object as the client got it (the upstream's own for a native answer). */
  response: { id: string; output?: unknown[]; [k: string]: unknown };
  /** The request's own `input`, as items (a string input is one user message). */
  input: ResponsesInputItem[];
  /** Ids of the responses this one continued, oldest first ([] when it started a conversation). */
  chain: string[];
  /** The provider that answered, and whether it answered natively (its own store then holds the response too). */
  provider: string;
  native: boolean;
}

/** A conversation read back for previous_response_id. */
export interface History {
  /** The response continued. */
  last: StoredResponse;
  /** The ids of every response in it, oldest first (the new response's `chain`). */
  chain: string[];
  /** Every input and output item in order: what the model saw and said. */
  items: ResponsesInputItem[];
}

/** The request's `input` as items: a string is one user message. */
export function inputItems(input: unknown): ResponsesInputItem[] {
  if (typeof input === 'string') return [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: input }] }];
  return Array.isArray(input) ? (input as ResponsesInputItem[]) : [];
}

export class ResponseStore {
  readonly #store: Store;
  readonly #ttlMs: number;

  /** `store`: the format's namespace; `ttlDays`: `[responses] ttl_days`. */
  constructor(store: Store, ttlDays: number) {
    this.#store = store;
    this.#ttlMs = Math.round(ttlDays * 86_400_000);
  }

  #key(id: string, owner: string): string {
    return `r:${id}:${owner}`;
  }

  /** Writes a record (replacing one with the same id and owner). Durable when resolved. */
  async put(owner: string, rec: StoredResponse): Promise<void> {
    await this.#store.set(this.#key(rec.response.id, owner), JSON.stringify(rec), { ttlMs: this.#ttlMs });
  }

  /** The record, or undefined (absent, expired, deleted, or another owner's). */
  async get(owner: string, id: string): Promise<StoredResponse | undefined> {
    const text = await this.#store.get(this.#key(id, owner));
    return text === undefined ? undefined : (JSON.parse(text) as StoredResponse);
  }

  /** Deletes the record; true when there was one. */
  async delete(owner: string, id: string): Promise<boolean> {
    const key = this.#key(id, owner);
    if ((await this.#store.get(key)) === undefined) return false;
    await this.#store.delete(key);
    return true;
  }

  /**
   * The conversation `id` ends: its ancestors' and its own input and output items, in order.
   * @throws RESPONSE_NOT_FOUND (404, `param` = `param`) when `id` or one of its ancestors is
   *   gone; CONVERSATION_TOO_LONG past {@link MAX_CHAIN} responses.
   */
  async history(owner: string, id: string, param: string): Promise<History> {
    const last = await this.get(owner, id);
    if (!last) throw RESPONSE_NOT_FOUND({ id, what: param === 'previous_response_id' ? 'previous response' : 'response' }, { param });
    const chain = [...last.chain, id];
    if (chain.length > MAX_CHAIN) throw CONVERSATION_TOO_LONG(MAX_CHAIN);
    const earlier = await Promise.all(last.chain.map((c) => this.get(owner, c)));
    const items: ResponsesInputItem[] = [];
    earlier.forEach((rec, i) => {
      if (!rec) throw RESPONSE_NOT_FOUND({ id: last.chain[i]!, what: `response ${id} continues response` }, { param });
      push(items, rec);
    });
    push(items, last);
    return { last, chain, items };
  }
}

function push(items: ResponsesInputItem[], rec: StoredResponse): void {
  for (const i of rec.input) items.push(i);
  for (const o of rec.response.output ?? []) items.push(o as ResponsesInputItem);
}
