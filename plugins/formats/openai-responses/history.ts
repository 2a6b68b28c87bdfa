/**
 * Conversation state on the way in: `item_reference` items resolved from the store, and a
 * stored history made fit for another native upstream.
 *
 * @see https://platform.openai.com/docs/api-reference/responses/create (input: item_reference)
 * @see https://platform.openai.com/docs/guides/conversation-state
 */
import type { ResponseStore } from './response-store.ts';
import type { ResponsesInputItem } from './types.ts';

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
 * the translator answers 400 naming the item). The same array when there is nothing to do.
 */
export async function resolveReferences(items: ResponsesInputItem[], owner: string, store: ResponseStore): Promise<ResponsesInputItem[]> {
  if (!items.some(isReference)) return items;
  const records = new Map<string, Promise<Map<string, unknown>>>();
  const outputOf = (responseId: string) => {
    let p = records.get(responseId);
    if (!p) {
      p = store.get(owner, responseId).then((rec) => new Map((rec?.response.output ?? []).map((o) => [(o as { id?: string }).id ?? '', o])));
      records.set(responseId, p);
    }
    return p;
  };
  return Promise.all(
    items.map(async (item) => {
      if (!isReference(item)) return item;
      const m = GW_ITEM.exec(item.id);
      if (!m) return item;
      const found = (await outputOf(`resp_${m[1]}`)).get(item.id);
      return (found as ResponsesInputItem | undefined) ?? item;
    }),
  );
}

/**
 * A stored history for a native upstream other than the one that stored it (a fallback, or a
 * conversation begun on a translated kind): item ids are dropped (they name items in another
 * store: the upstream would look them up and fail), and reasoning items without
 * `encrypted_content` are left out (their content cannot be sent back to a Responses API).
 */
export function portable(items: ResponsesInputItem[]): ResponsesInputItem[] {
  const out: ResponsesInputItem[] = [];
  for (const item of items) {
    if (typeof item !== 'object' || item === null) continue;
    const { id: _id, ...rest } = item as { id?: unknown; [k: string]: unknown };
    if (rest.type === 'reasoning' && typeof rest.encrypted_content !== 'string') continue;
    out.push(rest as ResponsesInputItem);
  }
  return out;
}
