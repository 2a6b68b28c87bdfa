/**
 * Messages format ⇄ common format, for POST /v1/messages when the model's provider speaks
 * only the common format: request in, completion or chunk stream out.
 */
export { messagesToChatRequest } from './to-chat-request.ts';
export type { ToChatResult } from './to-chat-request.ts';
export { chatCompletionToMessages, toToolInput } from './from-chat-completion.ts';
export type { FromChatOptions } from './from-chat-completion.ts';
export { ChunksToMessagesEvents, encodeMessagesEvent } from './chunks-to-events.ts';
export { mapStopReason, findStopSequence } from './map-stop-reason.ts';
export type { StopInfo } from './map-stop-reason.ts';
export { toMessagesUsage, toMessageId } from './map-usage.ts';
