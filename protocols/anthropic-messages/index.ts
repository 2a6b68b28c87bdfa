/**
 * `gw/plugin/anthropic-messages`: the Anthropic Messages protocol kit, everything about the
 * Messages wire protocol once, for both sides of gw. The client format (POST /v1/messages)
 * and the provider kinds that speak Messages (anthropic, and the Messages origins of
 * dashscope, zhipu or a third party's vendor) are thin users of it. Pure library code: no
 * routes, no plugin definitions. README.md lists the files and every translation decision.
 *
 *   types, schemas              the wire shapes; zod schemas of the requests and the error body
 *   usage, stop reasons, errors both ways between Messages and the common format
 *   stream reading              a native stream forwarded (MessagesNativeStep), or mapped to
 *                               common chunks (MessagesToCommonStep)
 *   passthrough                 the native call of a kind with a Messages origin
 *   client direction            Messages request → common, common answer/chunks → Messages
 *   vendor direction            common request → Messages, Messages answer → common
 *   messages_base_url           the setting of a vendor with a Messages origin of its own
 *
 * @see https://docs.anthropic.com/en/api/messages
 */

// the wire shapes
export type {
  MessagesContentBlock,
  MessagesErrorBody,
  MessagesMessage,
  MessagesRequest,
  MessagesResponse,
  MessagesStreamEvent,
  MessagesTool,
  MessagesUsage,
  StopReason,
} from './types.ts';
export { countTokensRequestSchema, messagesErrorSchema, messagesRequestSchema } from './schema.ts';

// usage, stop reasons and errors, both ways
export { fromMessagesUsage, mergeMessagesUsage, toMessageId, toMessagesUsage } from './map-usage.ts';
export { findStopSequence, fromMessagesStopReason, type StopInfo, toMessagesStopReason } from './map-stop-reason.ts';
export { messagesErrorBody, messagesErrorStatus, messagesErrorType, messagesStreamError, readMessagesError } from './errors.ts';

// native streams and calls
export { messagesErrorFrame, messagesFirstError, MessagesNativeStep } from './native-step.ts';
export { DEFAULT_ANTHROPIC_VERSION, messagesHeaders, messagesOrigin } from './passthrough.ts';

// client direction: a Messages request served by a common-format upstream
export { messagesToChatRequest, type ToChatResult } from './to-chat-request.ts';
export { chatCompletionToMessages, type FromChatOptions } from './from-chat-completion.ts';
export { CommonToMessagesStep, encodeMessagesEvent } from './from-common-step.ts';

// vendor direction: a common-format request served by a Messages upstream
export { toMessagesRequest, type ToMessagesRequestOptions } from './to-messages-request.ts';
export { convertToMessagesPrompt, type MessagesPrompt } from './convert-to-messages-prompt.ts';
export { mapTools, stripSchemaDialect } from './map-tools.ts';
export { type ClaudeModel, defaultMaxTokens, hasFixedSampling, parseClaudeModel, supportsStructuredOutputs, thinkingStyle } from './model-capabilities.ts';
export { fromMessagesResponse, refusalText } from './from-messages-response.ts';
export { MessagesToCommonStep } from './to-common-step.ts';

// a vendor serving the common format at one origin and Messages at another
export { messagesBaseUrlSchema } from './origin-schema.ts';

// the content view: a Messages request, answer and stream event read format-free
export { messagesContent } from './content.ts';
export { anthropicMessages } from './protocol.ts';

import type { MessagesStreamEvent } from './types.ts';

// onChunk's chunk type of this protocol: taps that test `chunk.format === 'anthropic-messages'` get it typed
declare module 'gw/plugin' {
  interface ChunkTypes {
    /** A Messages stream event (passthrough: parsed from the upstream's data). */
    'anthropic-messages': MessagesStreamEvent;
  }
}
