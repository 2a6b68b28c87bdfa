/**
 * `gw/plugin/gemini`: the Gemini API protocol as one object (`gemini`, protocol.ts: its client
 * side, content reader and vendor side), its wire types, and the two helpers its format and
 * provider need beside it. README.md lists the files and every translation decision.
 * @see Gemini API reference
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

// the protocol object (protocol.ts): client side, content reader, vendor side
export { gemini } from './protocol.ts';
// the API origin from `base_url` (a pasted `/v1beta` dropped), and a `{model}:{method}` path split
export { geminiOrigin } from './endpoints.ts';
export { splitModelMethod } from './models.ts';

import type { GenerateContentResponse } from './types.ts';

// onChunk's chunk type of this protocol: taps that test `chunk.format === 'gemini'` get it typed
declare module 'gw/plugin' {
  interface ChunkTypes {
    /** A Gemini stream response (passthrough: parsed from the upstream's event data). */
    gemini: GenerateContentResponse;
  }
}
