/**
 * Conversation state on the way in: the conversation `previous_response_id` continues,
 * expanded from the store, and `item_reference` items resolved from it (the kit's
 * `portable` makes such a history fit for another native upstream). What gw expands into a
 * request is bounded by `max_body_bytes`, counted as the request would be had the client
 * sent the items itself, and measured from the sizes the records keep before anything is
 * read.
 *
 * @see OpenAI API reference: Create a model response (input: item_reference)
 * @see OpenAI guide: Conversation state
 */
import { badRequest } from 'gw/plugin';
import { MAX_TURNS } from 'gw/plugin/format';
import type { ResponsesInputItem } from 'gw/plugin/openai-responses';
import { CONVERSATION_TOO_LARGE, CONVERSATION_TOO_LONG, RESPONSE_NOT_FOUND, RESPONSE_UNREADABLE } from './errors.ts';
import { outputItems, sizeOf, type StoredResponse } from './record.ts';
import type { ResponseStore } from './response-store.ts';

/**
 * The bytes a request may grow to while gw expands stored items into it: `max_body_bytes`,
 * of which the request's own body takes its share (measured at the first expansion, so a
 * request that expands nothing costs nothing).
 */
export class ExpansionBudget {
  readonly limit: number;
  #body: string | undefined;
  #used = 0;

  /** `limit`: bytes (`max_body_bytes`); `body`: the request body's text, measured in UTF-8 when first needed. */
  constructor(limit: number, body: string) {
    this.limit = limit;
    this.#body = body;
  }

  /** Bytes counted so far: the request's own and what was expanded into it. */
  get used(): number {
    if (this.#body !== undefined) {
      this.#used += Buffer.byteLength(this.#body);
      this.#body = undefined;
    }
    return this.#used;
  }

  /** @throws CONVERSATION_TOO_LARGE (400 naming `param`) when `bytes` more would not fit. */
  check(bytes: number, param: string): void {
    if (this.used + bytes > this.limit) throw CONVERSATION_TOO_LARGE({ limit: this.limit, param }, { param });
  }

  /** Counts `bytes` expanded for `param`. @throws as {@link check}, counting nothing. */
  add(bytes: number, param: string): void {
    this.check(bytes, param);
    this.#used += bytes;
  }
}

/** A conversation continued through previous_response_id, read as far as its last response. */
export interface Conversation {
  /** The response continued. */
  last: StoredResponse;
  /** The ids of every response in it, oldest first (the new response's `chain`). */
  chain: string[];
  /** UTF-8 bytes of its items as JSON: the last record's `total`, else known once expanded. */
  bytes: number | undefined;
}

const PARAM = 'previous_response_id';

/**
 * The conversation response `id` ends, as far as its last record: enough to continue it on
 * the native upstream that stored it, which needs nothing expanded.
 * @throws RESPONSE_NOT_FOUND (404), RESPONSE_UNREADABLE (409) for `id`; CONVERSATION_TOO_LONG
 *   (400) when it already holds more than `maxChain` responses.
 */
export async function openConversation(store: ResponseStore, owner: string, id: string, maxChain: number): Promise<Conversation> {
  const last = await store.get(owner, id, PARAM);
  if (!last) throw RESPONSE_NOT_FOUND({ id, what: 'previous response' }, { param: PARAM });
  if (last.chain.length + 1 > maxChain) throw CONVERSATION_TOO_LONG(maxChain);
  const chain = last.chain.slice();
  chain.push(id);
  return { last, chain, bytes: last.total };
}

/**
 * Every input and output item of the conversation, in order: what the model saw and said.
 * Counted against `budget` before any record is read when the last record knows the
 * conversation's size, else record by record as they are read, so no more than the budget
 * (and one window of records) is held when it does not fit. The items, with the request's
 * own `ownItems`, are held to MAX_TURNS as the request's own `input` is. Sets `conv.bytes`.
 * @throws CONVERSATION_TOO_LARGE (400) past the budget; a 400 `invalid_request_body` past
 *   MAX_TURNS items; RESPONSE_NOT_FOUND (404) or RESPONSE_UNREADABLE (409) naming an earlier
 *   response that is gone or damaged.
 */
export async function expandConversation(
  store: ResponseStore,
  owner: string,
  conv: Conversation,
  budget: ExpansionBudget,
  ownItems = 0,
): Promise<ResponsesInputItem[]> {
  const { last } = conv;
  if (last.total !== undefined) budget.check(last.total, PARAM);
  const items: ResponsesInputItem[] = [];
  let bytes = 0;
  const take = (rec: StoredResponse) => {
    const size = sizeOf(rec);
    budget.add(size, PARAM);
    bytes += size;
    const output = outputItems(rec);
    if (ownItems + items.length + rec.input.length + output.length > MAX_TURNS) throw tooManyItems();
    for (const i of rec.input) items.push(i);
    for (const o of output) items.push(o as ResponsesInputItem);
  };
  const lastId = conv.chain.at(-1)!;
  for await (const [id, rec] of store.records(owner, last.chain)) {
    if (rec === 'absent') throw RESPONSE_NOT_FOUND({ id, what: `response ${lastId} continues response` }, { param: PARAM });
    if (rec === 'unreadable') throw RESPONSE_UNREADABLE({ id, what: `response ${lastId} continues response` }, { param: PARAM });
    take(rec);
  }
  take(last);
  conv.bytes = bytes;
  return items;
}

/** The per-array cap's error (lib/common/limits.ts), for the items the conversation adds to the request's `input`. */
function tooManyItems() {
  return badRequest(
    `invalid request body: input: at most ${MAX_TURNS} input items per request, counting those of the conversation previous_response_id continues; start a new one with what matters of it in input`,
    PARAM,
  );
}

/**
 * An output item id gw minted (`itemId()`): `msg_`/`fc_`/`rs_`, the response id's 48 hex
 * digits, then the output index in hex. The response it belongs to is in the id itself.
 */
const GW_ITEM = /^(?:msg|fc|rs)_([0-9a-f]{48})[0-9a-f]{2,}$/;

function isReference(item: unknown): item is { type: 'item_reference'; id: string } {
  return (
    typeof item === 'object' && item !== null && (item as { type?: unknown }).type === 'item_reference' && typeof (item as { id?: unknown }).id === 'string'
  );
}

/**
 * `items` with every `item_reference` to an output item of a response gw stored for `owner`
 * replaced by that item (clients such as the AI SDK send references instead of items when
 * `store` is true). References gw cannot resolve stay (a native upstream resolves its own;
 * the translator answers 400 naming the item; a damaged record resolves nothing). Each
 * resolved item counts against `budget` (one serialization per distinct item). The same
 * array when there is nothing to do.
 * @throws CONVERSATION_TOO_LARGE (400 naming `input`) past the budget.
 */
export async function resolveReferences(
  items: ResponsesInputItem[],
  owner: string,
  store: ResponseStore,
  budget: ExpansionBudget,
): Promise<ResponsesInputItem[]> {
  if (!items.some(isReference)) return items;
  const records = new Map<string, Promise<Map<string, unknown>>>();
  const outputOf = (responseId: string) => {
    let p = records.get(responseId);
    if (!p) {
      p = store
        .get(owner, responseId)
        .catch((err: unknown) => {
          if (RESPONSE_UNREADABLE.is(err)) return undefined;
          throw err;
        })
        .then((rec) => new Map((rec ? outputItems(rec) : []).map((o) => [(o as { id?: string }).id ?? '', o])));
      records.set(responseId, p);
    }
    return p;
  };
  const sizes = new Map<unknown, number>();
  return Promise.all(
    items.map(async (item) => {
      if (!isReference(item)) return item;
      const m = GW_ITEM.exec(item.id);
      if (!m) return item;
      const found = (await outputOf(`resp_${m[1]}`)).get(item.id);
      if (found === undefined) return item;
      let size = sizes.get(found);
      if (size === undefined) sizes.set(found, (size = Buffer.byteLength(JSON.stringify(found))));
      budget.add(size, 'input');
      return found as ResponsesInputItem;
    }),
  );
}
