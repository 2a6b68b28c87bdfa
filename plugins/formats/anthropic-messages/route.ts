/**
 * POST /v1/messages. Kinds with a Messages origin (`native['anthropic-messages']`) get the
 * request and answer forwarded unchanged (events as they arrive; gw adds nothing but SSE
 * comments). Every other kind is reached by translating Messages ⇄ common format around
 * `chat`.
 */
import type { Context } from 'koa';
import type { RequestContext } from '../../../core/context.ts';
import { UPSTREAM_MALFORMED, UPSTREAM_TRUNCATED } from '../../../core/error-codes.ts';
import { StreamProgress } from '../../../core/format/estimate.ts';
import { isBlank, malformedEvent, malformedFirst, objectFramed, parseEventObject } from '../../../core/format/sse-data.ts';
import type { Chunk, Hooks } from '../../../core/hooks.ts';
import { dataField } from '../../../core/http/sse-write.ts';
import type { Pipeline } from '../../../core/pipeline/pipeline.ts';
import { translatedFrames } from '../../../core/pipeline/translated-frames.ts';
import { callChat, type ChatOutcome, type NativeOutcome, primeNative } from '../../../core/pipeline/upstream-calls.ts';
import type { SseEvent } from '../../../core/provider.ts';
import { NO_SECRETS, type SecretRedactor } from '../../../core/redact.ts';
import { ChunksToMessagesEvents, encodeMessagesEvent } from './chunks-to-events.ts';
import { messagesErrorBody, messagesStreamError } from './errors.ts';
import { chatCompletionToMessages } from './from-chat-completion.ts';
import { fromMessagesUsage, mergeMessagesUsage } from './map-usage.ts';
import { messagesRequestSchema } from './schema.ts';
import { messagesToChatRequest } from './to-chat-request.ts';
import type { MessagesRequest, MessagesStreamEvent, MessagesUsage } from './types.ts';

export const FORMAT = 'anthropic-messages';

type Outcome = { native: NativeOutcome } | { translated: ChatOutcome };

/** An error event or malformed data as a stream's first event is a failure before the stream (retried, or a status). */
function errorFirst(provider: string) {
  return (ev: SseEvent) => {
    if (ev.event !== 'error') return malformedFirst(ev.data, provider);
    let e: unknown;
    try {
      e = (JSON.parse(ev.data) as { error?: unknown }).error;
    } catch {
      e = { message: ev.data.slice(0, 200) };
    }
    return messagesStreamError(e, provider, true);
  };
}

/** The handler of POST /v1/messages. */
export function messagesRoute(pipeline: Pipeline, hooks: Hooks) {
  return async function messages(ctx: Context): Promise<void> {
    const body = (ctx.state as { body: { body: Record<string, unknown> } }).body.body;
    const a = await pipeline.admit(ctx, {
      schema: messagesRequestSchema,
      facts: {
        route: 'messages',
        operation: 'generate',
        model: body.model as string,
        stream: body.stream === true,
        maxOutputTokens: body.max_tokens as number,
      },
    });
    if (!a) return;
    if (await pipeline.fromCache(ctx, a)) return;
    const rc = a.rc;
    const stops = (body.stop_sequences as string[] | undefined) ?? [];
    const served = await pipeline.dispatch<Outcome>(a, async (p, _model, b, call) => {
      const native = p.native?.[FORMAT];
      if (native) return { native: await primeNative(await native(b, call), errorFirst(p.name)) };
      const { req, warnings } = messagesToChatRequest(b as MessagesRequest);
      if (warnings.length && rc.log.isLevelEnabled('debug')) rc.log.debug({ req: rc.id, provider: p.name, warnings }, 'Messages fields dropped in translation');
      return { translated: await callChat(p, req, { ...call, rawBody: undefined }) };
    });
    const headers = served.headers;
    const v = served.value;
    if ('native' in v) {
      const r = v.native;
      if (r.type === 'json') {
        let usage: MessagesUsage | undefined;
        try {
          usage = (JSON.parse(r.raw) as { usage?: MessagesUsage }).usage;
        } catch {
          throw UPSTREAM_MALFORMED({ provider: rc.provider!, what: 'a malformed JSON body' }, { provider: rc.provider });
        }
        rc.usage = usage ? fromMessagesUsage(usage) : undefined;
        return pipeline.finish(ctx, a, { status: r.status, body: r.raw, headers });
      }
      const progress = new StreamProgress();
      const frames = passthroughFrames(hooks, rc, r.events, progress, a.snap.secrets);
      return pipeline.stream(ctx, a, { headers, ready: r.ready, frames, errorFrame, progress });
    }
    const r = v.translated;
    if (r.type === 'json') {
      rc.usage = r.body.usage ?? undefined;
      const out = chatCompletionToMessages(r.body, { requestModel: rc.model, stopSequences: stops, provider: rc.provider });
      return pipeline.finish(ctx, a, { body: JSON.stringify(out), headers });
    }
    const progress = new StreamProgress();
    return pipeline.stream(ctx, a, {
      headers,
      ready: r.ready,
      frames: translatedFrames(hooks, rc, r.chunks, progress, {
        format: FORMAT,
        translator: new ChunksToMessagesEvents({ requestModel: rc.model, stopSequences: stops }),
        encode: encodeMessagesEvent,
        isTerminator: (ev) => ev.type === 'message_stop',
      }),
      errorFrame,
      progress,
    });
  };
}

/** A failure after the first byte, as Messages clients expect it. */
function errorFrame(err: Parameters<typeof messagesErrorBody>[0]): string {
  return `event: error\ndata: ${messagesErrorBody(err)}\n\n`;
}

/** The output fields of a `content_block_delta`, for the early-end estimate. */
const TEXT = '"text":';
const THINKING = '"thinking":';
const PARTIAL_JSON = '"partial_json":';

/**
 * Native Messages events, forwarded as they came; usage read from message_start/message_delta.
 * Events are parsed only where gw needs them (usage, errors, an onChunk tap); the others are
 * checked for their framing (core/format/sse-data.ts) and counted for the early-end estimate
 * from their delta's one text field. An `error` event is forwarded with the provider keys
 * (`secrets`) redacted out of it: an upstream may quote its credentials there.
 */
export async function* passthroughFrames(
  hooks: Hooks,
  rc: RequestContext,
  events: AsyncIterable<SseEvent>,
  progress: StreamProgress,
  secrets: SecretRedactor = NO_SECRETS,
): AsyncGenerator<string, string | undefined> {
  const tapped = hooks.onChunk.isUsed();
  const holder = { format: FORMAT, value: undefined as unknown } as Chunk & { value: unknown };
  const usage: Partial<MessagesUsage> = {};
  const provider = rc.provider!;
  for await (const ev of events) {
    const type = ev.event;
    const data = type === 'error' ? secrets.redact(ev.data) : ev.data;
    let obj: { message?: { usage?: unknown }; usage?: unknown; error?: unknown } | undefined;
    if (tapped || type === 'message_start' || type === 'message_delta' || type === 'error') {
      if (isBlank(data)) continue;
      obj = parseEventObject(data, provider);
    } else if (!objectFramed(data)) {
      if (isBlank(data)) continue;
      throw malformedEvent(provider, data);
    }
    if (type === 'content_block_delta') {
      const before = progress.bytes;
      progress.field(data, TEXT);
      if (progress.bytes === before) progress.field(data, PARTIAL_JSON);
      if (progress.bytes === before) progress.field(data, THINKING);
    } else if (type === 'message_start') {
      rc.usage = fromMessagesUsage(mergeMessagesUsage(usage, obj!.message?.usage));
      progress.reported();
    } else if (type === 'message_delta') {
      rc.usage = fromMessagesUsage(mergeMessagesUsage(usage, obj!.usage));
      progress.reported();
    }
    if (tapped) {
      holder.value = obj as MessagesStreamEvent;
      hooks.onChunk.call(rc, holder);
    }
    const frame = `${type ? `event: ${type}\n` : ''}${dataField(data)}\n\n`;
    if (type === 'message_stop') return frame;
    if (type === 'error') {
      // forwarded unchanged, then the stream ends as a failure (charged for what it streamed)
      yield frame;
      const err = messagesStreamError(obj?.error, provider);
      err.forwarded = true;
      throw err;
    }
    yield frame;
  }
  throw UPSTREAM_TRUNCATED({ provider, expected: 'message_stop' }, { provider });
}
