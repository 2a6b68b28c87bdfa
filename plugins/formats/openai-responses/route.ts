/**
 * POST /v1/responses as a generate route (the kernel's loop, core/pipeline/generate.ts).
 * Kinds whose upstream speaks Responses (`native['openai-responses']`: openai, azure,
 * opted-in self-defined sections) get the body and answer forwarded unchanged; every other
 * kind is reached by translating Responses ⇄ common format around `chat` (README.md in this
 * folder has the field table).
 *
 * State: with `store` (default true) each answer is kept (response-store.ts) before its last
 * byte goes out; `previous_response_id` is expanded from the store into `input` before
 * translating, and before forwarding to a native upstream other than the one that stored it
 * (the same native provider gets the id unchanged: its own store holds the conversation, and
 * gw reads no more than the last record). What is expanded keeps the request within
 * `max_body_bytes` (history.ts).
 */
import { errors, type RequestContext } from 'gw/plugin';
import { bodyOf, type Generate } from 'gw/plugin/format';
import { responsesAffinity } from './affinity.ts';
import {
  ChunksToResponsesEvents,
  chatCompletionToResponse,
  encodeAll,
  encodeResponsesEvent,
  fromResponsesUsage,
  inputItems,
  newResponseId,
  portable,
  type ResponsesInputItem,
  type ResponsesRequest,
  ResponsesRouteMissing,
  type ResponsesStreamEvent,
  ResponsesStreamReader,
  responsesFirstError,
  responsesRequestSchema,
  responsesToChatRequest,
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

function positive(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined;
}

/** A request's conversation state: what it continues, its own input, and where its answer is kept. */
interface Turn {
  /** The stored conversation `previous_response_id` continues. */
  conv: Conversation | undefined;
  /** The request's own input as sent, and with item references to gw's stored items resolved. */
  sent: ResponsesInputItem[];
  own: ResponsesInputItem[];
  /** The earlier turns' items, read once when a provider needs them sent (not the native one that stored them). */
  history(): Promise<ResponsesInputItem[]>;
  /** Stores the answer for the key (never throws); `native`: a native upstream made it. */
  save(response: StoredResponse['response'] | undefined, native: boolean): Promise<void>;
}

/** What a translated answer needs of the translation. */
interface Translation {
  toolNames: ReturnType<typeof responsesToChatRequest>['toolNames'];
  droppedTools: string[];
}

/** The generate route of POST /v1/responses over the format's response store. */
export function responsesGenerate(d: RouteDeps): Generate<Turn, Translation, ResponsesStreamEvent> {
  const answerOpts = (rc: RequestContext, t: Translation) => ({
    body: rc.body as ResponsesRequest,
    requestModel: rc.model,
    toolNames: t.toolNames,
    id: newResponseId(),
    store: rc.body.store !== false,
  });
  return {
    label: 'Responses',
    schema: responsesRequestSchema,
    read(ctx) {
      const body = bodyOf(ctx);
      const continues = typeof body.previous_response_id === 'string' && body.previous_response_id !== '';
      return {
        facts: {
          route: 'responses',
          model: body.model as string,
          stream: body.stream === true,
          maxOutputTokens: positive(body.max_output_tokens),
          cacheable: !continues,
        },
      };
    },
    affinity: responsesAffinity,
    capOutput: (body, cap) => ({ ...body, max_output_tokens: cap }),
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
      return {
        conv,
        sent,
        own,
        history: () => (history ??= conv ? expandConversation(d.store, owner, conv, budget, sent.length) : Promise.resolve([])),
        async save(response, native) {
          if (rc.body.store === false || typeof response?.id !== 'string') return;
          const rec: StoredResponse = { response, input: own, chain: conv?.chain ?? [], provider: rc.provider!, native };
          try {
            await d.store.put(owner, rec, conv ? conv.bytes : 0);
          } catch (err) {
            // the answer itself is good: the client gets it, a later previous_response_id gets 404
            rc.log.error({ err, req: rc.id, response: response.id }, 'storing the response failed');
          }
        },
      };
    },
    native: {
      firstError: responsesFirstError,
      async call(native, body, call, { provider, state }) {
        try {
          const conv = state.conv;
          if (conv === undefined || (conv.last.native && conv.last.provider === provider.name)) return await native(body, call);
          const { previous_response_id: _prev, ...rest } = body;
          const full = { ...rest, input: [...portable(await state.history()), ...inputItems(body.input)] };
          return await native(full, { ...call, rawBody: undefined });
        } catch (err) {
          // the upstream has no Responses API after all (route-missing.ts): this request too is translated
          if (err instanceof ResponsesRouteMissing) return undefined;
          throw err;
        }
      },
      async json(raw, { rc, state }) {
        let parsed: StoredResponse['response'] & { usage?: unknown };
        try {
          parsed = JSON.parse(raw);
        } catch {
          throw errors.UPSTREAM_MALFORMED({ provider: rc.provider!, what: `a malformed JSON body: ${raw.slice(0, 200)}` }, { provider: rc.provider });
        }
        rc.usage = fromResponsesUsage(parsed?.usage);
        await state.save(parsed, true);
        return parsed;
      },
      stream: ({ rc, state }, progress) => new ResponsesStreamReader(rc, progress, (response) => state.save(response, true)),
    },
    translated: {
      async toChat(body, _target, { rc, provider, state }) {
        const history = state.conv === undefined ? undefined : await state.history();
        const tb =
          history === undefined && state.own === state.sent ? body : { ...body, input: history === undefined ? state.own : [...history, ...state.own] };
        const tr = responsesToChatRequest(tb as ResponsesRequest);
        if (tr.droppedTools.length > 0)
          // how many, not which: their types and names are the client's (the debug warnings name them)
          rc.log.info(
            { req: rc.id, provider: provider.name, dropped: tr.droppedTools.length },
            'Responses built-in tools dropped: the provider cannot run them',
          );
        return { req: tr.req, warnings: tr.warnings, extra: { toolNames: tr.toolNames, droppedTools: tr.droppedTools } };
      },
      headers: (t) => (t.droppedTools.length > 0 ? { 'x-gw-dropped-tools': headerValue(t.droppedTools.join(', ')) } : undefined),
      async json(completion, _raw, { rc, state, extra }) {
        const out = chatCompletionToResponse(completion, answerOpts(rc, extra));
        await state.save(out, false);
        return JSON.stringify(out);
      },
      stream({ rc, state, extra }) {
        const mapper = new ChunksToResponsesEvents(answerOpts(rc, extra));
        return {
          translator: mapper,
          encode: encodeResponsesEvent,
          isTerminator: (ev) => ev.type === 'response.completed' || ev.type === 'response.incomplete',
          // saved before its event goes out: a client that reads it back at once finds it
          beforeTerminator: async (ev) => {
            if ('response' in ev) await state.save(ev.response, false);
          },
          errorFrame: (err) => encodeAll(mapper.fail(err)),
        };
      },
    },
  };
}

/** Longest `x-gw-dropped-tools` value: the tools' labels come from the client's body. */
const HEADER_MAX = 1024;

/**
 * `s` as an HTTP header value: a tool's type and name are the client's strings, and a
 * control or non-ASCII character in a header is refused by node (a 500): those are
 * percent-encoded (UTF-8; a lone surrogate as U+FFFD), and the value is cut to HEADER_MAX.
 */
export function headerValue(s: string): string {
  const safe = s.replace(/[^\x20-\x7e]/gu, (c) => {
    try {
      return encodeURIComponent(c);
    } catch {
      return '%EF%BF%BD';
    }
  });
  return safe.length > HEADER_MAX ? `${safe.slice(0, HEADER_MAX)}...` : safe;
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
