/**
 * The Gemini API as a client format: Gemini requests in, any kind out. Pure translators
 * (no I/O) between Gemini's wire shapes and the common format, the stream framings, Google's
 * error body, countTokens estimates, embeddings, the models listing and request schemas.
 * (The routes are in index.ts; the gemini kind's native passthrough in passthrough.ts.)
 */
export { geminiToChatRequest } from './to-chat-request.ts';
export type { GeminiToChatOptions, GeminiToChatResult } from './to-chat-request.ts';
export { chatCompletionToGemini, functionCallPart } from './from-chat-completion.ts';
export type { ToGeminiOptions } from './from-chat-completion.ts';
export { ChunksToGeminiStream } from './chunks-to-stream.ts';
export type { ChunksToGeminiOptions } from './chunks-to-stream.ts';
export { encodeSseError, encodeSseResponse, JsonArrayFraming } from './stream-framing.ts';
export { googleStatusName, toGoogleError } from './google-error.ts';
export type { GoogleError } from './google-error.ts';
export { estimateCountTokens } from './count-tokens.ts';
export {
  batchEmbedContentsToEmbeddings,
  embedContentToEmbeddings,
  embeddingsToBatchEmbedContents,
  embeddingsToEmbedContent,
} from './embeddings.ts';
export { listGeminiModels, splitModelMethod, toGeminiModel } from './models.ts';
export { googleSchemaToJsonSchema, normalizeJsonSchema } from './convert-schema.ts';
export { toGeminiFinishReason } from './map-finish-reason.ts';
export { toUsageMetadata } from './map-usage.ts';
export {
  batchEmbedContentsRequestSchema,
  countTokensRequestSchema,
  embedContentRequestSchema,
  generateContentRequestSchema,
} from './schemas.ts';
