/**
 * POST /v1/messages (Messages format). Kinds with a Messages origin get the request and
 * answer forwarded unchanged (events as they arrive; gw adds nothing but SSE comments).
 * Every other kind is reached by translating Messages ⇄ common format around `chat`.
 * Errors on this route use the Messages error shape (the app's boundary does that).
 */
import type { Context } from 'koa';
import type { RequestContext } from '../context.ts';
import { dispatch } from '../dispatch.ts';
import { dataField, KEEP_ALIVE_MS } from '../http/sse-write.ts';
import { primeFirst } from '../resilience/prime.ts';
import { GatewayError, messagesErrorStatus } from '../errors.ts';
import type { ChatCompletion, ChatCompletionChunk, Usage } from '../format/chat.ts';
import type { MessagesRequest, MessagesUsage } from '../format/messages.ts';
import { chatCompletionToMessages } from '../format/messages-translate/from-chat-completion.ts';
import { ChunksToMessagesEvents, encodeMessagesEvent } from '../format/messages-translate/chunks-to-events.ts';
import { messagesToChatRequest } from '../format/messages-translate/to-chat-request.ts';
import type { Gateway } from '../gateway.ts';
import type { CallContext, MessagesResult, Provider, SseEvent, StreamItem } from '../provider.ts';
import { messagesRequestSchema } from '../schemas.ts';
import { admit, answered, forModel, upstreamCall } from './admit.ts';
import { sendJson } from './respond.ts';
import { pumpStream } from './stream.ts';

/** Messages usage → common usage (prompt includes cache reads and writes). */
export function usageFromMessages(u: Partial<MessagesUsage> | undefined, prev?: Usage): Usage | undefined {
  if (!u) return prev;
  const input = (u.input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);
  const prompt = u.input_tokens === undefined && prev ? prev.prompt_tokens : input;
  const completion = u.output_tokens ?? prev?.completion_tokens ?? 0;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

export function messagesRoute(ref: () => Gateway) {
  return async function messages(ctx: Context): Promise<void> {
    const gw = ref();
    const admitted = await admit(gw, ctx, 'messages', messagesRequestSchema);
    if (!admitted) return;
    const { rc, route } = admitted;
    const body = rc.body;
    const up = upstreamCall(ctx, rc);
    const signal = up.call.signal;
    const t0 = performance.now();
    const dispatched = await dispatch<Outcome>(gw.table, route, signal, async (p, model) => {
      const [native, call] = forModel(rc, up.body, up.call, model);
      if (p.messages) return { native: await primeNative(await p.messages(native, call)) };
      return translated(p, native as MessagesRequest, call, rc);
    });
    const value = dispatched.value;
    const provider = dispatched.provider;
    const headers = answered(rc, dispatched);
    if ('native' in value) {
      const r = value.native;
      if (r.type === 'json') {
        rc.upstreamMs = performance.now() - t0;
        try {
          rc.usage = usageFromMessages((JSON.parse(r.raw) as { usage?: MessagesUsage }).usage);
        } catch {
          throw new GatewayError(502, `provider ${provider.name} sent a malformed JSON body`, { code: 'upstream_malformed', provider: provider.name });
        }
        rc.status = r.status;
        if (gw.hooks.onResponse.isUsed()) await gw.hooks.onResponse.promise(rc, { body: r.raw });
        return sendJson(ctx, r.status, r.raw, headers);
      }
      return pumpStream(gw, ctx, rc, headers, signal, t0, passthroughFrames(gw, rc, r.events), true, r.ready);
    }
    if ('json' in value) {
      rc.upstreamMs = performance.now() - t0;
      rc.usage = value.json.usage ?? undefined;
      const out = chatCompletionToMessages(value.json, { requestModel: rc.model, stopSequences: (body.stop_sequences as string[] | undefined) ?? [] });
      const text = JSON.stringify(out);
      rc.status = 200;
      if (gw.hooks.onResponse.isUsed()) await gw.hooks.onResponse.promise(rc, { body: text });
      return sendJson(ctx, 200, text, headers);
    }
    return pumpStream(gw, ctx, rc, headers, signal, t0, translatedFrames(gw, rc, value.chunks, (body.stop_sequences as string[] | undefined) ?? []), true, value.ready);
  };
}

type Native = { type: 'json'; status: number; raw: string; contentType: string } | { type: 'stream'; events: AsyncIterable<SseEvent>; ready: boolean };
type Outcome = { native: Native } | { json: ChatCompletion } | { chunks: AsyncIterable<StreamItem>; ready: boolean };


/**
 * Primes a native stream's first event: an `error` event before anything else is a
 * pre-stream failure (retried, or answered with a status), not a stream to forward.
 */
async function primeNative(r: MessagesResult): Promise<Native> {
  if (r.type === 'json') return r;
  const primed = await primeFirst(r.events, KEEP_ALIVE_MS);
  const head = primed.first;
  if (head?.event === 'error') {
    await primed.close();
    let e: { type?: string; message?: string } = {};
    try {
      e = (JSON.parse(head.data) as { error?: typeof e }).error ?? {};
    } catch {
      // malformed error event: generic message below
    }
    const upstreamStatus = messagesErrorStatus(e.type);
    // an upstream 4xx keeps its status (DESIGN.md "Errors"); 5xx and 529 become 502
    throw new GatewayError(upstreamStatus < 500 ? upstreamStatus : 502, `upstream stream failed before its first event: ${e.message ?? head.data.slice(0, 200)}`, { code: e.type ?? 'upstream_error', upstreamStatus });
  }
  return { type: 'stream', events: primed.items, ready: primed.ready };
}

async function translated(p: Provider, body: MessagesRequest, call: CallContext, rc: RequestContext): Promise<Outcome> {
  const { req, warnings } = messagesToChatRequest(body);
  if (warnings.length && rc.log.isLevelEnabled('debug')) rc.log.debug({ req: rc.id, provider: p.name, warnings }, 'Messages fields dropped in translation');
  const r = await p.chat(req, { ...call, rawBody: undefined });
  if (r.type === 'json') return { json: r.body };
  const primed = await primeFirst(r.chunks, KEEP_ALIVE_MS);
  return { chunks: primed.items, ready: primed.ready };
}

/** Native Messages events, forwarded as they came; usage read from message_start/message_delta. */
async function* passthroughFrames(gw: Gateway, rc: RequestContext, events: AsyncIterable<SseEvent>): AsyncGenerator<string, string | undefined> {
  const onChunk = gw.hooks.onChunk;
  const tapped = onChunk.isUsed();
  for await (const ev of events) {
    const type = ev.event;
    let obj: { type?: string; message?: { usage?: MessagesUsage }; usage?: MessagesUsage; error?: { type: string; message: string } } | undefined;
    if (tapped || type === 'message_start' || type === 'message_delta' || type === 'error') {
      try {
        obj = JSON.parse(ev.data);
      } catch {
        throw new GatewayError(502, `provider ${rc.provider} sent a malformed ${type ?? 'stream'} event`, { code: 'upstream_malformed' });
      }
    }
    if (type === 'message_start') rc.usage = usageFromMessages(obj!.message?.usage, rc.usage);
    else if (type === 'message_delta') rc.usage = usageFromMessages(obj!.usage, rc.usage);
    if (tapped) onChunk.call(rc, obj);
    const frame = `${type ? `event: ${type}\n` : ''}${dataField(ev.data)}\n\n`;
    if (type === 'message_stop') return frame;
    if (type === 'error') {
      // forwarded unchanged, then the stream ends as a failure (onError, nothing accounted)
      yield frame;
      throw Object.assign(new GatewayError(502, obj?.error?.message ?? 'upstream stream error', { code: obj?.error?.type ?? 'upstream_error' }), { forwarded: true });
    }
    yield frame;
  }
  throw new GatewayError(502, `provider ${rc.provider} ended the stream before message_stop`, { code: 'upstream_truncated' });
}

/** Common chunks → Messages events for a client that spoke Messages to a common-format kind. */
async function* translatedFrames(gw: Gateway, rc: RequestContext, items: AsyncIterable<StreamItem>, stops: string[]): AsyncGenerator<string, string | undefined> {
  const onChunk = gw.hooks.onChunk;
  const tapped = onChunk.isUsed();
  const mapper = new ChunksToMessagesEvents({ requestModel: rc.model, stopSequences: stops });
  for await (const item of items) {
    const chunk = typeof item === 'string' ? (JSON.parse(item) as ChatCompletionChunk) : item;
    if (chunk.usage) rc.usage = chunk.usage;
    for (const ev of mapper.push(chunk)) {
      if (tapped) onChunk.call(rc, ev);
      yield encodeMessagesEvent(ev);
    }
  }
  const tail = mapper.end();
  let last: string | undefined;
  for (const ev of tail) {
    if (tapped) onChunk.call(rc, ev);
    if (ev.type === 'message_stop') last = encodeMessagesEvent(ev);
    else yield encodeMessagesEvent(ev);
  }
  return last;
}
