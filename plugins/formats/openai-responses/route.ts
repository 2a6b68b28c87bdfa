/**
 * POST /v1/responses: the kit's generate declaration (`openaiResponses.client.generate`) with
 * gw's state around it. With `store` (default true) each answer is kept (response-store.ts)
 * before its last byte goes out; `previous_response_id` is expanded from the store into `input`
 * before translating, and before forwarding to a native upstream other than the one that stored
 * it (the same native provider gets the id unchanged: its own store holds the conversation).
 * What is expanded keeps the request within `max_body_bytes` (history.ts).
 */
import type { RequestContext } from 'gw/plugin';
import type { Generate } from 'gw/plugin/format';
import {
  inputItems,
  openaiResponses,
  portable,
  type ResponsesInputItem,
  type ResponsesStreamEvent,
  type ResponsesTranslation,
  type ResponsesTurn,
} from 'gw/plugin/openai-responses';
import type { Context } from 'koa';
import { type Conversation, ExpansionBudget, expandConversation, openConversation, resolveReferences } from './history.ts';
import type { ResponseStore, StoredResponse } from './response-store.ts';

/** What the route needs from the format's setup. */
export interface RouteDeps {
  store: ResponseStore;
  /** `max_body_bytes`: what a request may grow to with stored items expanded into it. */
  maxBodyBytes: number;
  /** `[responses] max_chain_length`. */
  maxChain: number;
}

/** A request's conversation state: what it continues, its own input, and where its answer is kept. */
interface Turn extends ResponsesTurn {
  /** The stored conversation `previous_response_id` continues. */
  conv: Conversation | undefined;
  /** The request's own input as sent. */
  sent: ResponsesInputItem[];
  /** The earlier turns' items, read once when a provider needs them sent (not the native one that stored them). */
  history(): Promise<ResponsesInputItem[]>;
}

/** The generate route of POST /v1/responses over the format's response store. */
export function responsesGenerate(d: RouteDeps): Generate<Turn, ResponsesTranslation, ResponsesStreamEvent> {
  const kit = openaiResponses.client.generate;
  const native = kit.native!;
  return {
    ...kit,
    cached: (ctx, rc) => storeCacheHit(d.store, ctx, rc),
    async prepare(a) {
      const rc = a.rc;
      const owner = ownerOf(rc);
      const prevId = rc.body.previous_response_id;
      const conv = typeof prevId === 'string' && prevId !== '' ? await openConversation(d.store, owner, prevId, d.maxChain) : undefined;
      const budget = new ExpansionBudget(d.maxBodyBytes, rc.rawBody);
      const sent = inputItems(rc.body.input);
      const own = await resolveReferences(sent, owner, d.store, budget);
      let history: Promise<ResponsesInputItem[]> | undefined;
      const turn: Turn = {
        conv,
        sent,
        history: () => (history ??= conv ? expandConversation(d.store, owner, conv, budget, sent.length) : Promise.resolve([])),
        async input() {
          if (conv === undefined) return own === sent ? undefined : own;
          return [...(await turn.history()), ...own];
        },
        async save(response, isNative) {
          if (rc.body.store === false || typeof response?.id !== 'string') return;
          const rec: StoredResponse = {
            response: response as StoredResponse['response'],
            input: own,
            chain: conv?.chain ?? [],
            provider: rc.provider!,
            native: isNative,
          };
          try {
            await d.store.put(owner, rec, conv ? conv.bytes : 0);
          } catch (err) {
            // the answer itself is good: the client gets it, a later previous_response_id gets 404
            rc.log.error({ err, req: rc.id, response: response.id }, 'storing the response failed');
          }
        },
      };
      return turn;
    },
    native: {
      ...native,
      async call(entry, body, call, env) {
        const conv = env.state.conv;
        if (conv === undefined || (conv.last.native && conv.last.provider === env.provider.name)) return native.call!(entry, body, call, env);
        const { previous_response_id: _prev, ...rest } = body;
        const full = { ...rest, input: [...portable(await env.state.history()), ...inputItems(body.input)] };
        return native.call!(entry, full, { ...call, rawBody: undefined }, env);
      },
    },
  };
}

/** The owner of the responses a request stores and reads: its key's name ('' when the gateway runs open). */
export function ownerOf(rc: Pick<RequestContext, 'key'>): string {
  return rc.key?.name ?? '';
}

/**
 * A cache hit answers with a Response first stored for whoever asked first (maybe another
 * key): store it for this key too, so GET and previous_response_id work for it. The hit's
 * text is `ctx.body` until the handler returns, so it is stored before the bytes go out.
 */
async function storeCacheHit(store: ResponseStore, ctx: Context, rc: RequestContext): Promise<void> {
  const owner = ownerOf(rc);
  if (rc.body.store === false || typeof ctx.body !== 'string') return;
  let response: { id?: unknown; [k: string]: unknown } | undefined;
  try {
    response = JSON.parse(ctx.body);
  } catch {
    return;
  }
  if (typeof response?.id !== 'string') return;
  try {
    await store.put(owner, { response: response as StoredResponse['response'], input: inputItems(rc.body.input), chain: [], provider: '', native: false }, 0);
  } catch (err) {
    rc.log.error({ err, req: rc.id, response: response.id }, 'storing the cached response failed');
  }
}
