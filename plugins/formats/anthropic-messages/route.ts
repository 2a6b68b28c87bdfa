/**
 * POST /v1/messages as a generate route (the kernel's loop, core/pipeline/generate.ts), over
 * the Messages kit. Kinds with a Messages origin (`native['anthropic-messages']`) get the
 * request and answer forwarded unchanged (events as they arrive; gw adds nothing but SSE
 * comments). Every other kind is reached by translating Messages ⇄ common format around `chat`.
 */
import { errors } from 'gw/plugin';
import { bodyOf, type Generate } from 'gw/plugin/format';
import {
  ChunksToMessagesEvents,
  chatCompletionToMessages,
  encodeMessagesEvent,
  fromMessagesUsage,
  type MessagesRequest,
  type MessagesStreamEvent,
  MessagesStreamReader,
  type MessagesUsage,
  messagesErrorFrame,
  messagesFirstError,
  messagesRequestSchema,
  messagesToChatRequest,
} from 'gw/plugin/anthropic-messages';
import { messagesAffinity } from './affinity.ts';

export const FORMAT = 'anthropic-messages';

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
  capOutput: (body, cap) => ({ ...body, max_tokens: cap }),
  native: {
    firstError: messagesFirstError,
    json(raw, { rc }) {
      let parsed: { usage?: MessagesUsage };
      try {
        parsed = JSON.parse(raw) as { usage?: MessagesUsage };
      } catch {
        throw errors.UPSTREAM_MALFORMED({ provider: rc.provider!, what: 'a malformed JSON body' }, { provider: rc.provider });
      }
      const usage = parsed?.usage;
      rc.usage = usage ? fromMessagesUsage(usage) : undefined;
      return parsed;
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
