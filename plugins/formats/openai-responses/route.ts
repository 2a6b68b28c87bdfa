/**
 * POST /v1/responses. Kinds whose upstream speaks Responses (`native['openai-responses']`:
 * openai, azure, opted-in self-defined sections) get the body and answer forwarded
 * unchanged; every other kind is reached by translating Responses ⇄ common format around
 * `chat` (README.md in this folder has the field table).
 *
 * State: with `store` (default true) each answer is kept (response-store.ts) before its last
 * byte goes out; `previous_response_id` is expanded from the store into `input` before
 * translating, and before forwarding to a native upstream other than the one that stored it
 * (the same native provider gets the id unchanged: its own store holds the conversation, and
 * gw reads no more than the last record). What is expanded keeps the request within
 * `max_body_bytes` (history.ts).
 */
import type { Context } from 'koa';
import type { RequestContext } from '../../../core/context.ts';
import { UPSTREAM_MALFORMED } from '../../../core/error-codes.ts';
import type { GatewayError } from '../../../core/errors.ts';
import { StreamProgress } from '../../../core/format/estimate.ts';
import { malformedFirst } from '../../../core/format/sse-data.ts';
import type { Hooks } from '../../../core/hooks.ts';
import type { Pipeline } from '../../../core/pipeline/pipeline.ts';
import { callChat, type ChatOutcome, type NativeOutcome, primeNative } from '../../../core/pipeline/upstream-calls.ts';
import type { SseEvent } from '../../../core/provider.ts';
import { ChunksToResponsesEvents } from './chunks-to-events.ts';
import { responsesStreamError } from './errors.ts';
import { chatCompletionToResponse } from './from-chat-completion.ts';
import { type Conversation, ExpansionBudget, expandConversation, openConversation, portable, resolveReferences } from './history.ts';
import { fromResponsesUsage } from './map-usage.ts';
import { typeOf } from './passthrough.ts';
import { inputItems, type ResponseStore, type StoredResponse } from './response-store.ts';
import { newResponseId } from './response-base.ts';
import { responsesRequestSchema } from './schema.ts';
import { translatedFrames } from '../../../core/pipeline/translated-frames.ts';
import { encodeResponsesEvent } from './encode-event.ts';
import { encodeAll, NativeStream } from './streams.ts';
import { ResponsesRouteMissing } from './route-missing.ts';
import { responsesToChatRequest, type ToChatResult } from './to-chat-request.ts';
import type { ResponsesInputItem, ResponsesRequest } from './types.ts';

export const FORMAT = 'openai-responses';

type Outcome = { native: NativeOutcome } | { translated: ChatOutcome; tr: ToChatResult };

/** What the route needs from the format's setup. */
export interface RouteDeps {
  pipeline: Pipeline;
  hooks: Hooks;
  store: ResponseStore;
  /** `max_body_bytes`: what a request may grow to with stored items expanded into it. */
  maxBodyBytes: number;
  /** `[responses] max_chain_length`. */
  maxChain: number;
}

/** An `error` or `response.failed` event, or malformed data, as a native stream's first event: a failure before the stream (retried, or a status). */
function failedFirst(provider: string) {
  return (ev: SseEvent) => {
    const type = ev.event ?? typeOf(ev.data);
    if (type !== 'error' && type !== 'response.failed') return malformedFirst(ev.data, provider);
    let data: Parameters<typeof responsesStreamError>[0];
    try {
      data = JSON.parse(ev.data);
    } catch {
      data = { message: ev.data.slice(0, 200) };
    }
    return responsesStreamError(data, provider, true);
  };
}

function positive(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined;
}

/** The handler of POST /v1/responses. */
export function createResponseRoute(d: RouteDeps) {
  const { pipeline, hooks } = d;
  return async function createResponse(ctx: Context): Promise<void> {
    const { body, raw } = (ctx.state as { body: { body: Record<string, unknown>; raw: string } }).body;
    const prevId = typeof body.previous_response_id === 'string' && body.previous_response_id !== '' ? body.previous_response_id : undefined;
    const a = await pipeline.admit(ctx, {
      schema: responsesRequestSchema,
      facts: {
        route: 'responses',
        operation: 'generate',
        model: body.model as string,
        stream: body.stream === true,
        maxOutputTokens: positive(body.max_output_tokens),
        cacheable: prevId === undefined,
      },
    });
    if (!a) return;
    const rc = a.rc;
    const owner = ownerOf(rc);
    if (await pipeline.fromCache(ctx, a)) return storeCacheHit(d.store, ctx, rc, owner);
    const conv: Conversation | undefined = prevId === undefined ? undefined : await openConversation(d.store, owner, prevId, d.maxChain);
    const budget = new ExpansionBudget(d.maxBodyBytes, raw);
    // the request's own input, item references to gw's stored items resolved (for translation and storage)
    const sent = inputItems(body.input);
    const own = await resolveReferences(sent, owner, d.store, budget);
    // the history is read only when a provider needs it sent (not the native one that stored it), once
    let history: Promise<ResponsesInputItem[]> | undefined;

    const served = await pipeline.dispatch<Outcome>(a, async (p, _model, b, call) => {
      const native = p.native?.[FORMAT];
      if (native) {
        try {
          if (conv === undefined || (conv.last.native && conv.last.provider === p.name)) {
            return { native: await primeNative(await native(b, call), failedFirst(p.name)) };
          }
          const { previous_response_id: _prev, ...rest } = b;
          history ??= expandConversation(d.store, owner, conv, budget);
          const full = { ...rest, input: [...portable(await history), ...inputItems(b.input)] };
          return { native: await primeNative(await native(full, { ...call, rawBody: undefined }), failedFirst(p.name)) };
        } catch (err) {
          // the upstream has no Responses API after all (route-missing.ts): this request too is translated
          if (!(err instanceof ResponsesRouteMissing)) throw err;
        }
      }
      if (conv !== undefined) history ??= expandConversation(d.store, owner, conv, budget);
      const tb = history === undefined && own === sent ? b : { ...b, input: history === undefined ? own : [...(await history), ...own] };
      const tr = responsesToChatRequest(tb as ResponsesRequest);
      if (tr.droppedTools.length > 0)
        // how many, not which: their types and names are the client's (the debug warnings name them)
        rc.log.info({ req: rc.id, provider: p.name, dropped: tr.droppedTools.length }, 'Responses built-in tools dropped: the provider cannot run them');
      if (tr.warnings.length > 0 && rc.log.isLevelEnabled('debug'))
        rc.log.debug({ req: rc.id, provider: p.name, warnings: tr.warnings }, 'Responses fields dropped in translation');
      return { translated: await callChat(p, tr.req, { ...call, rawBody: undefined }), tr };
    });

    const headers = served.headers;
    const v = served.value;
    const store = body.store !== false;
    const save = async (response: StoredResponse['response']): Promise<void> => {
      if (!store || typeof response?.id !== 'string') return;
      const rec: StoredResponse = { response, input: own, chain: conv?.chain ?? [], provider: rc.provider!, native: 'native' in v };
      try {
        await d.store.put(owner, rec, conv ? conv.bytes : 0);
      } catch (err) {
        // the answer itself is good: the client gets it, a later previous_response_id gets 404
        rc.log.error({ err, req: rc.id, response: response.id }, 'storing the response failed');
      }
    };

    if ('native' in v) {
      const r = v.native;
      if (r.type === 'json') {
        let parsed: StoredResponse['response'] & { usage?: unknown };
        try {
          parsed = JSON.parse(r.raw);
        } catch {
          throw UPSTREAM_MALFORMED({ provider: rc.provider!, what: `a malformed JSON body: ${r.raw.slice(0, 200)}` }, { provider: rc.provider });
        }
        rc.usage = fromResponsesUsage(parsed?.usage);
        await save(parsed);
        return pipeline.finish(ctx, a, { status: r.status, body: r.raw, headers, contentType: r.contentType });
      }
      const s = new NativeStream(hooks, rc, save, a.snap.secrets);
      return pipeline.stream(ctx, a, {
        headers,
        ready: r.ready,
        frames: s.frames(r.events),
        errorFrame: (err: GatewayError) => s.errorFrame(err),
        progress: s.progress,
      });
    }

    const { translated: r, tr } = v;
    if (tr.droppedTools.length > 0) headers['x-gw-dropped-tools'] = headerValue(tr.droppedTools.join(', '));
    const opts = { body: body as ResponsesRequest, requestModel: rc.model, toolNames: tr.toolNames, id: newResponseId(), store };
    if (r.type === 'json') {
      rc.usage = r.body.usage ?? undefined;
      const out = chatCompletionToResponse(r.body, opts);
      await save(out);
      return pipeline.finish(ctx, a, { body: JSON.stringify(out), headers });
    }
    const mapper = new ChunksToResponsesEvents(opts);
    const progress = new StreamProgress();
    return pipeline.stream(ctx, a, {
      headers,
      ready: r.ready,
      frames: translatedFrames(hooks, rc, r.chunks, progress, {
        format: FORMAT,
        translator: mapper,
        encode: encodeResponsesEvent,
        isTerminator: (ev) => ev.type === 'response.completed' || ev.type === 'response.incomplete',
        // saved before its event goes out: a client that reads it back at once finds it
        beforeTerminator: async (ev) => {
          if ('response' in ev) await save(ev.response);
        },
      }),
      errorFrame: (err: GatewayError) => encodeAll(mapper.fail(err)),
      progress,
    });
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
async function storeCacheHit(store: ResponseStore, ctx: Context, rc: RequestContext, owner: string): Promise<void> {
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
