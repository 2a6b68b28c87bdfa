/**
 * The stored-response routes, served from gw's store (never from an upstream), for the
 * gateway key that created the response (another key gets 404, as for an unknown id):
 * GET /v1/responses/{id}, DELETE /v1/responses/{id}, GET /v1/responses/{id}/input_items.
 *
 * @see OpenAI API reference: Get a model response
 * @see OpenAI API reference: Delete a model response
 * @see OpenAI API reference: List input items
 */
import { badRequest } from 'gw/plugin';
import { keyOf, own, quoted, requestIdOf } from 'gw/plugin/format';
import type { ResponsesInputItem } from 'gw/plugin/openai-responses';
import type { Context } from 'koa';
import { RESPONSE_NOT_FOUND } from './errors.ts';
import { outputItems } from './record.ts';
import type { ResponseStore, StoredResponse } from './response-store.ts';

function owner(ctx: Context): string {
  return keyOf(ctx)?.name ?? '';
}

function send(ctx: Context, body: unknown): void {
  ctx.type = 'application/json';
  ctx.set('x-request-id', requestIdOf(ctx));
  ctx.body = JSON.stringify(body);
}

function query(ctx: Context, name: string): string | undefined {
  const v = ctx.query[name];
  return Array.isArray(v) ? v[0] : v;
}

/** GET /v1/responses/{id}: the Response as it was answered. `stream=true` (replaying a background response) → 400. */
export function getResponse(store: ResponseStore) {
  return async function retrieveResponse(ctx: Context): Promise<void> {
    const id = ctx.params.id!;
    if (query(ctx, 'stream') === 'true')
      throw badRequest('stream: replaying a stored response as a stream is not supported (gw has no background responses)', 'stream');
    const rec = await store.get(owner(ctx), id);
    if (!rec) throw RESPONSE_NOT_FOUND({ id }, { param: 'response_id' });
    send(ctx, rec.response);
  };
}

/** DELETE /v1/responses/{id} → 200 `{id, object: "response", deleted: true}`; gw's copy only (a native upstream keeps its own). */
export function deleteResponse(store: ResponseStore) {
  return async function removeResponse(ctx: Context): Promise<void> {
    const id = ctx.params.id!;
    if (!(await store.delete(owner(ctx), id))) throw RESPONSE_NOT_FOUND({ id }, { param: 'response_id' });
    send(ctx, { id, object: 'response', deleted: true });
  };
}

const PREFIX: Record<string, string> = { message: 'msg', function_call: 'fc', function_call_output: 'fco', reasoning: 'rs' };

type Listed = ResponsesInputItem & { id: string };

/**
 * Item `i` of a record's own input, with an id: the client's when it sent one, else one
 * derived from the response id and the position (stable, so `after` pages work).
 */
function withId(item: ResponsesInputItem, i: number, responseId: string): Listed {
  const given = (item as { id?: unknown }).id;
  if (typeof given === 'string' && given !== '') return item as Listed;
  const hex = responseId.startsWith('resp_') ? responseId.slice(5) : responseId;
  const type = typeof item.type === 'string' ? item.type : 'message';
  return {
    ...(type === 'message' && item.type === undefined ? { type: 'message' } : {}),
    ...item,
    id: `${own(PREFIX, type) ?? 'item'}_${hex}_in${i}`,
  } as Listed;
}

/** The items of response `id` in list order: its input, then `output` (`asc`), or the reverse. */
function* turnItems(input: ResponsesInputItem[], output: unknown[], id: string, asc: boolean): Generator<Listed> {
  if (asc) {
    for (let i = 0; i < input.length; i++) yield withId(input[i]!, i, id);
    for (const o of output) yield o as Listed;
  } else {
    for (let i = output.length - 1; i >= 0; i--) yield output[i] as Listed;
    for (let i = input.length - 1; i >= 0; i--) yield withId(input[i]!, i, id);
  }
}

/**
 * Every item the model was given for `rec`, in list order: the conversation it continued,
 * earlier responses read a window at a time (an expired, deleted or damaged one is left
 * out: the list shows what is left), and its own input. Stops reading when the caller stops.
 */
async function* conversationItems(store: ResponseStore, owner: string, rec: StoredResponse, id: string, asc: boolean): AsyncGenerator<Listed> {
  if (!asc) yield* turnItems(rec.input, [], id, false);
  for await (const [cid, e] of store.records(owner, asc ? rec.chain : rec.chain.toReversed())) {
    if (typeof e !== 'string') yield* turnItems(e.input, outputItems(e), cid, asc);
  }
  if (asc) yield* turnItems(rec.input, [], id, true);
}

/**
 * GET /v1/responses/{id}/input_items: the items the model was given for this response — the
 * conversation it continued (earlier inputs and outputs) and its own input — as OpenAI's
 * list (`data`, `first_id`, `last_id`, `has_more`). Query: `limit` 1–100 (default 20),
 * `order` `asc`|`desc` (default `desc`: newest first), `after` (an item id). Reads the
 * conversation only as far as the page needs, holding one window of records at a time.
 */
export function listInputItems(store: ResponseStore) {
  return async function inputItemsRoute(ctx: Context): Promise<void> {
    const id = ctx.params.id!;
    const limitText = query(ctx, 'limit');
    const limit = limitText === undefined ? 20 : Number(limitText);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw badRequest('limit: must be an integer from 1 to 100', 'limit');
    const order = query(ctx, 'order') ?? 'desc';
    if (order !== 'asc' && order !== 'desc') throw badRequest('order: must be "asc" or "desc"', 'order');
    const after = query(ctx, 'after');

    const rec = await store.get(owner(ctx), id);
    if (!rec) throw RESPONSE_NOT_FOUND({ id }, { param: 'response_id' });
    const page: Listed[] = [];
    let found = after === undefined;
    let hasMore = false;
    for await (const item of conversationItems(store, owner(ctx), rec, id, order === 'asc')) {
      if (!found) {
        found = item.id === after;
      } else if (page.length < limit) {
        page.push(item);
      } else {
        hasMore = true;
        break;
      }
    }
    if (!found) throw badRequest("after: no item with this id in this response's input", 'after', quoted(after));
    send(ctx, { object: 'list', data: page, first_id: page[0]?.id ?? null, last_id: page.at(-1)?.id ?? null, has_more: hasMore });
  };
}
