/**
 * The OpenAI Responses API as a client format: its wire types, request schema, and the pure
 * translators to and from the common format (request in; completion or chunk stream out).
 * See README.md for the field-by-field translation table.
 */
export type * from './types.ts';
export { responsesRequestSchema } from './schema.ts';
export { responsesToChatRequest } from './to-chat-request.ts';
export type { ToChatResult } from './to-chat-request.ts';
export { ToolNames, mapTools, mapToolChoice } from './map-tools.ts';
export type { MappedTools } from './map-tools.ts';
export { chatCompletionToResponse, functionCallItem } from './from-chat-completion.ts';
export { ChunksToResponsesEvents } from './chunks-to-events.ts';
export { streamFailureEvents } from './stream-failure.ts';
export type { StreamFailure } from './stream-failure.ts';
export { encodeResponsesEvent } from './encode-event.ts';
export { responseBase, newResponseId, itemId } from './response-base.ts';
export type { FromChatOptions } from './response-base.ts';
export { mapStatus } from './map-status.ts';
export { toResponsesUsage } from './map-usage.ts';
