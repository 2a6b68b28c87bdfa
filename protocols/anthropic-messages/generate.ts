/**
 * POST /v1/messages as a generate declaration (the kernel's loop runs it). Kinds with a
 * Messages origin get request and answer forwarded unchanged (gw adds nothing but SSE
 * comments); every other kind is reached by translating Messages ⇄ common format.
 */
import { bodyOf, type Generate } from 'gw/plugin/format';
import { parseUpstreamJson } from '../../lib/http/upstream.ts';
import { messagesAffinity } from './affinity.ts';
import { chatCompletionToMessages } from './from-chat-completion.ts';
import { CommonToMessagesStep, encodeMessagesEvent } from './from-common-step.ts';
import { RefusalEnding } from './refusal.ts';
import { fromMessagesUsage } from './map-usage.ts';
import { MessagesNativeStep, messagesErrorFrame, messagesFirstError } from './native-step.ts';
import { messagesRequestSchema } from './schema.ts';
import { messagesToChatRequest } from './to-chat-request.ts';
import type { MessagesRequest, MessagesStreamEvent, MessagesUsage } from './types.ts';

/** What a translated answer needs of the request: its stop sequences (`stop_sequence` when one matched). */
export interface Stops {
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
      const parsed = parseUpstreamJson<{ usage?: MessagesUsage } | null>(raw, rc.provider!);
      const usage = parsed?.usage;
      rc.usage = usage ? fromMessagesUsage(usage) : undefined;
      return parsed;
    },
    stream: ({ rc }, progress) => new MessagesNativeStep(rc, progress),
  },
  translated: {
    toCommon(body) {
      const { req, warnings } = messagesToChatRequest(body as MessagesRequest);
      return { req, warnings, extra: { stops: (body.stop_sequences as string[] | undefined) ?? [] } };
    },
    fromCommon: (completion, _raw, { rc, extra }) =>
      JSON.stringify(chatCompletionToMessages(completion, { requestModel: rc.model, stopSequences: extra.stops, provider: rc.provider })),
    stream: ({ rc, extra }) => {
      const ending = new RefusalEnding(rc);
      return {
        step: new CommonToMessagesStep({ requestModel: rc.model, stopSequences: extra.stops }),
        encode: encodeMessagesEvent,
        isTerminator: (ev) => ev.type === 'message_stop',
        errorFrame: messagesErrorFrame,
        released: (ev) => ending.seen(ev.type),
        filtered: () => ending.events(),
      };
    },
  },
};
