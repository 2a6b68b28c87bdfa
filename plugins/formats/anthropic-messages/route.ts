/**
 * POST /v1/messages as a generate route (the kernel's loop, core/pipeline/generate.ts).
 * Kinds with a Messages origin (`native['anthropic-messages']`) get the request and answer
 * forwarded unchanged (events as they arrive; gw adds nothing but SSE comments). Every other
 * kind is reached by translating Messages ⇄ common format around `chat`.
 */
import { UPSTREAM_MALFORMED } from '../../../core/error-codes.ts';
import { malformedFirst } from '../../../core/format/sse-data.ts';
import { bodyOf, type Generate } from '../../../core/pipeline/generate.ts';
import type { SseEvent } from '../../../core/provider.ts';
import { messagesAffinity } from './affinity.ts';
import { ChunksToMessagesEvents, encodeMessagesEvent } from './chunks-to-events.ts';
import { messagesStreamError } from './errors.ts';
import { chatCompletionToMessages } from './from-chat-completion.ts';
import { fromMessagesUsage } from './map-usage.ts';
import { messagesRequestSchema } from './schema.ts';
import { messagesErrorFrame, MessagesStreamReader } from './stream-reader.ts';
import { messagesToChatRequest } from './to-chat-request.ts';
import type { MessagesRequest, MessagesStreamEvent, MessagesUsage } from './types.ts';

export const FORMAT = 'anthropic-messages';

/** An error event or malformed data as a stream's first event is a failure before the stream (retried, or a status). */
function firstError(ev: SseEvent, provider: string) {
  if (ev.event !== 'error') return malformedFirst(ev.data, provider);
  let e: unknown;
  try {
    e = (JSON.parse(ev.data) as { error?: unknown }).error;
  } catch {
    e = { message: ev.data.slice(0, 200) };
  }
  return messagesStreamError(e, provider, true);
}

/** What a translated answer needs of the request: its stop sequences (`stop_sequence` when one matched). */
interface Stops {
  stops: string[];
}

/** The generate route of POST /v1/messages. */
export const messagesGenerate: Generate<undefined, Stops, MessagesStreamEvent> = {
  label: 'Messages',
  schema: messagesRequestSchema,
  read(ctx) {
    const body = bodyOf(ctx);
    return { facts: { route: 'messages', model: body.model as string, stream: body.stream === true, maxOutputTokens: body.max_tokens as number } };
  },
  affinity: messagesAffinity,
  native: {
    firstError,
    json(raw, { rc }) {
      let usage: MessagesUsage | undefined;
      try {
        usage = (JSON.parse(raw) as { usage?: MessagesUsage }).usage;
      } catch {
        throw UPSTREAM_MALFORMED({ provider: rc.provider!, what: 'a malformed JSON body' }, { provider: rc.provider });
      }
      rc.usage = usage ? fromMessagesUsage(usage) : undefined;
    },
    stream: ({ rc }, progress) => new MessagesStreamReader(rc, progress),
  },
  translated: {
    toChat(body) {
      const { req, warnings } = messagesToChatRequest(body as MessagesRequest);
      return { req, warnings, extra: { stops: (body.stop_sequences as string[] | undefined) ?? [] } };
    },
    json: (completion, _raw, { rc, extra }) =>
      JSON.stringify(chatCompletionToMessages(completion, { requestModel: rc.model, stopSequences: extra.stops, provider: rc.provider })),
    stream: ({ rc, extra }) => ({
      translator: new ChunksToMessagesEvents({ requestModel: rc.model, stopSequences: extra.stops }),
      encode: encodeMessagesEvent,
      isTerminator: (ev) => ev.type === 'message_stop',
      errorFrame: messagesErrorFrame,
    }),
  },
};
