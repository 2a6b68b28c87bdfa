/**
 * `gw/plugin/openai-responses`: the OpenAI Responses protocol kit. Its wire types and
 * request schema, usage and status mapping, in-band stream failures (reading and writing),
 * the native stream reader and passthrough call, the route-missing switch for upstreams
 * without a Responses API, and the converters both ways: a Responses request → a common
 * chat request (with its tool names), a chat completion → a Response, common chunks →
 * Responses stream events. Pure library code: no routes, no state (gw's stored responses
 * are the client format's own).
 * @see https://platform.openai.com/docs/api-reference/responses
 */
export { CommonToResponsesStep } from './from-common-step.ts';
export { responsesContent } from './content.ts';
export type { ResponsesTranslation, ResponsesTurn } from './generate.ts';
export { openaiResponses } from './protocol.ts';
export { encodeAll, encodeResponsesEvent } from './encode-event.ts';
export { responsesFirstError, responsesStreamError } from './errors.ts';
export { isObj } from './fail.ts';
export { chatCompletionToResponse, functionCallItem } from './from-chat-completion.ts';
export { inputItems, portable } from './items.ts';
export { mapStatus, type StatusInfo } from './map-status.ts';
export { type MappedTools, mapToolChoice, mapTools, ToolNames } from './map-tools.ts';
export { fromResponsesUsage, toResponsesUsage } from './map-usage.ts';
export { isTerminal, typeOf } from './passthrough.ts';
export { type FromChatOptions, itemId, newResponseId, responseBase } from './response-base.ts';
export { isRouteMissing, ResponsesRouteMissing, switchOnRouteMissing } from './route-missing.ts';
export { responsesRequestSchema } from './schema.ts';
export { type StreamFailure, streamFailureEvents } from './stream-failure.ts';
export { ResponsesNativeStep, type SaveResponse, sequenceOf } from './native-step.ts';
export { responsesToChatRequest, type ToChatResult } from './to-chat-request.ts';
export type * from './types.ts';

/** The Responses protocol's id: its client format's, `Provider.native`'s key, its chunks' `format` in onChunk. */
export const OPENAI_RESPONSES = 'openai-responses';

import type { ResponsesStreamEvent } from './types.ts';

// onChunk's chunk type of this protocol: taps that test `chunk.format === 'openai-responses'` get it typed
declare module 'gw/plugin' {
  interface ChunkTypes {
    /** A Responses stream event (passthrough: parsed from the upstream's data). */
    'openai-responses': ResponsesStreamEvent;
  }
}
