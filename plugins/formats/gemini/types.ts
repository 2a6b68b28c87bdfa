/**
 * Gemini API shapes as a client sends them to gw (inbound, unvalidated: every field is
 * `unknown` until a translator checks it) and the few outbound shapes the provider's wire
 * types do not cover. Response-side shapes (GenerateContentResponse, Part, UsageMetadata,
 * Google's error body) are the provider's, re-exported.
 *
 * @see https://ai.google.dev/api/generate-content
 * @see https://ai.google.dev/api/tokens
 * @see https://ai.google.dev/api/embeddings
 * @see https://ai.google.dev/api/models
 */
export type {
  Candidate, Content, FunctionCall, GenerateContentResponse, GoogleErrorBody, Part, UsageMetadata,
} from '../../providers/gemini/types.ts';

/** Body of `models/{model}:generateContent` / `:streamGenerateContent` as received. */
export interface GenerateContentBody {
  contents?: unknown;
  systemInstruction?: unknown;
  tools?: unknown;
  toolConfig?: unknown;
  generationConfig?: unknown;
  safetySettings?: unknown;
  cachedContent?: unknown;
  [k: string]: unknown;
}

/** Body of `models/{model}:countTokens`: `contents`, or a whole `generateContentRequest`. */
export interface CountTokensBody {
  contents?: unknown;
  generateContentRequest?: unknown;
  [k: string]: unknown;
}

/** Answer of `countTokens`. */
export interface CountTokensResponse {
  totalTokens: number;
  cachedContentTokenCount?: number;
  promptTokensDetails?: Array<{ modality: string; tokenCount: number }>;
}

/** Body of `models/{model}:embedContent`, and one item of `batchEmbedContents.requests`. */
export interface EmbedContentBody {
  model?: unknown;
  content?: unknown;
  taskType?: unknown;
  title?: unknown;
  outputDimensionality?: unknown;
  [k: string]: unknown;
}

/** Body of `models/{model}:batchEmbedContents`. */
export interface BatchEmbedContentsBody {
  requests?: unknown;
  [k: string]: unknown;
}

/** `ContentEmbedding`. */
export interface ContentEmbedding {
  values: number[];
}

/** Answer of `embedContent`. */
export interface EmbedContentResponse {
  embedding: ContentEmbedding;
}

/** Answer of `batchEmbedContents`. */
export interface BatchEmbedContentsResponse {
  embeddings: ContentEmbedding[];
}

/** The generation methods gw serves for a model (`Model.supportedGenerationMethods`). */
export type GenerationMethod = 'generateContent' | 'streamGenerateContent' | 'countTokens' | 'embedContent' | 'batchEmbedContents';

/** `Model` in `models.list` / `models.get`. Token limits are left out: gw does not know them. */
export interface GeminiModel {
  /** `models/{id}` */
  name: string;
  baseModelId: string;
  version: string;
  displayName: string;
  description: string;
  supportedGenerationMethods: GenerationMethod[];
}

/** Answer of `models.list`. */
export interface ListModelsResponse {
  models: GeminiModel[];
  nextPageToken?: string;
}
