/**
 * The stored-response routes, served from gw's store (never from an upstream), for the
 * gateway key that created the response (another key gets 404, as for an unknown id):
 * GET /v1/responses/{id}, DELETE /v1/responses/{id}, GET /v1/responses/{id}/input_items.
 *
 * @see https://platform.openai.com/docs/api-reference/responses/get
 * @see https://platform.openai.com/docs/api-reference/responses/delete
 * @see https://platform.openai.com/docs/api-reference/responses/input-items
 */
import type { Context } from 'koa';
import { badRequest } from '../../../core/error-codes.ts';
import type { GwState } from '../../../core/pipeline/state.ts';
import { RESPONSE_NOT_FOUND } from './errors.ts';
import type { ResponseStore } from './response-store.ts';
import type { ResponsesInputItem } from './types.ts';

function owner(ctx: Context): string {
  return (ctx.state as GwState).key?.name ?? '';
}

function send(ctx: Context, body: unknown): void {
  ctx.type = 'application/json';
  ctx.set('x-request-id', (ctx.state as GwState).id);
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

type ListedItem = ResponsesInputItem & { id: string };

const PREFIX: Record<string, string> = { message: 'msg', function_call: 'fc', function_call_output: 'fco', reasoning: 'rs' };

/**
 * Appends the items of a record's own input to `out`, each with an id: the client's when it
 * sent one, else one derived from the response id and the position (stable, so `after`
 * pages work).
 */
function pushWithIds(out: ListedItem[], input: ResponsesInputItem[], responseId: string): void {
  const hex = responseId.startsWith('resp_') ? responseId.slice(5) : responseId;
  for (let i = 0; i < input.length; i++) {
    const item = input[i]!;
    const given = (item as { id?: unknown }).id;
    if (typeof given === 'string' && given !== '') {
      out.push(item as ListedItem);
      continue;
    }
    const type = typeof item.type === 'string' ? item.type : 'message';
    out.push({
      ...(type === 'message' && item.type === undefined ? { type: 'message' } : {}),
      ...item,
      id: `${PREFIX[type] ?? 'item'}_${hex}_in${i}`,
    } as ListedItem);
  }
}

/**
 * GET /v1/responses/{id}/input_items: the items the model was given for this response — the
 * conversation it continued (earlier inputs and outputs) and its own input — as OpenAI's
 * list (`data`, `first_id`, `last_id`, `has_more`). Query: `limit` 1–100 (default 20),
 * `order` `asc`|`desc` (default `desc`: newest first), `after` (an item id).
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
    const items: ListedItem[] = [];
    if (rec.chain.length > 0) {
      const earlier = await Promise.all(rec.chain.map((c) => store.get(owner(ctx), c)));
      earlier.forEach((e, i) => {
        if (!e) return; // an expired or deleted ancestor: list what is left
        pushWithIds(items, e.input, rec.chain[i]!);
        for (const o of e.response.output ?? []) items.push(o as ListedItem);
      });
    }
    pushWithIds(items, rec.input, id);
    if (order === 'desc') items.reverse();
    let start = 0;
    if (after !== undefined) {
      const at = items.findIndex((i) => i.id === after);
      if (at < 0) throw badRequest(`after: no item '${after}' in this response's input`, 'after');
      start = at + 1;
    }
    const page = items.slice(start, start + limit);
    send(ctx, { object: 'list', data: page, first_id: page[0]?.id ?? null, last_id: page.at(-1)?.id ?? null, has_more: start + limit < items.length });
  };
}
