/**
 * `gw/plugin/gemini`: the Gemini API protocol kit, everything about Google's Gemini wire
 * protocol once, for both sides of gw. The Gemini client format (`models/{model}:…` routes)
 * and the gemini provider kind are thin users of it. Pure library code: no routes, no plugin
 * definitions. README.md lists the files and every translation decision.
 *
 *   types, schemas            the wire shapes; zod schemas of the requests and Google's error body
 *   usage, finish reasons,    both ways between Gemini and the common format
 *   errors
 *   streams                   the two client framings (SSE, JSON array); a native stream
 *                             forwarded (GeminiNativeStep) or mapped to common chunks
 *                             (GeminiToCommonStep)
 *   passthrough, endpoints    the native call of the gemini kind; the API's URLs
 *   client direction          Gemini request → common, common answer/chunks → Gemini;
 *                             countTokens estimate; embedContent ⇄ common embeddings
 *   vendor direction          common request → Gemini, Gemini answer → common;
 *                             common embeddings ⇄ batchEmbedContents; models.list pages
 *
 * @see https://ai.google.dev/api
 */

// the wire shapes
export type {
  BatchEmbedContentsBody,
  BatchEmbedContentsRequest,
  BatchEmbedContentsResponse,
  Candidate,
  Content,
  ContentEmbedding,
  CountTokensBody,
  CountTokensResponse,
  EmbedContentBody,
  EmbedContentResponse,
  GeminiModel,
  GenerateContentBody,
  GenerateContentRequest,
  GenerateContentResponse,
  GoogleErrorBody,
  ListModelsResponse,
  Part,
  UsageMetadata,
} from './types.ts';
export {
  batchEmbedContentsRequestSchema,
  countTokensRequestSchema,
  embedContentRequestSchema,
  generateContentRequestSchema,
  googleErrorSchema,
} from './schemas.ts';

// usage, finish reasons and errors, both ways
export { fromUsageMetadata, hasTokenCounts, toUsageMetadata } from './map-usage.ts';
export { fromGeminiFinishReason, toGeminiFinishReason } from './map-finish-reason.ts';
export { type GoogleError, geminiStreamError, googleErrorBody, googleStatusName, readGeminiError, toGoogleError } from './google-error.ts';

// streams: the client's framing, a native stream forwarded, the native call and the API's URLs
export {
  arrayFraming,
  encodeSseError,
  encodeSseResponse,
  type Framing,
  framingHeaders,
  framingOf,
  JsonArrayFraming,
  sseFraming,
} from './stream-framing.ts';
export { ERROR_PAYLOAD, GeminiNativeStep, geminiFirstError } from './native-step.ts';
export { upstreamBody, upstreamQuery } from './passthrough.ts';
export { GEMINI_ORIGIN, type GeminiEndpoints, geminiEndpoints, geminiOrigin } from './endpoints.ts';

// client direction: a Gemini request served by a common-format upstream
export { type GeminiToChatOptions, type GeminiToChatResult, geminiToChatRequest } from './to-chat-request.ts';
export { chatCompletionToGemini, functionCallPart, type ToGeminiOptions } from './from-chat-completion.ts';
export { type ChunksToGeminiOptions, CommonToGeminiStep } from './from-common-step.ts';
export { googleSchemaToJsonSchema, normalizeJsonSchema } from './convert-schema.ts';
export { estimateCountTokens } from './count-tokens.ts';
export {
  batchEmbedContentsToEmbeddings,
  type EmbedToCommonResult,
  embedContentToEmbeddings,
  embeddingsToBatchEmbedContents,
  embeddingsToEmbedContent,
} from './embed-content.ts';
export { DEFAULT_PAGE_SIZE, listGeminiModels, MAX_PAGE_SIZE, splitModelMethod, toGeminiModel } from './models.ts';

// vendor direction: a common-format request served by a Gemini upstream
export { THINKING_BUDGETS, toGeminiRequest } from './to-gemini-request.ts';
export { FOREIGN_CALL_SIGNATURE } from './convert-messages.ts';
export { fromGeminiResponse, type ResponseMeta } from './from-gemini-response.ts';
export { GeminiToCommonStep, type StreamMeta } from './to-common-step.ts';
export { counterIdSource, type IdSource, mintToolCallId, type ParsedToolCallId, parseToolCallId, randomIdSource } from './tool-call-ids.ts';
export { embeddingInputs, fromBatchEmbedResponse, toBatchEmbedRequest } from './batch-embed.ts';
export { type ListModelsPage, readModelsPage } from './list-models.ts';

// the content view: a Gemini request, answer and stream event read format-free
export { geminiContent } from './content.ts';
export { gemini } from './protocol.ts';

import type { GenerateContentResponse } from './types.ts';

// onChunk's chunk type of this protocol: taps that test `chunk.format === 'gemini'` get it typed
declare module 'gw/plugin' {
  interface ChunkTypes {
    /** A Gemini stream response (passthrough: parsed from the upstream's event data). */
    gemini: GenerateContentResponse;
  }
}
