/**
 * Gemini API wire types, for both directions: the gemini kind (gw calling Google) and the
 * Gemini client format (Gemini clients calling gw). Only the fields gw writes or reads; JSON
 * names as on the wire (proto3 JSON mapping: camelCase, `bytes` as base64 strings, enums as
 * their names). Inbound request bodies are typed loosely (every field `unknown` until a
 * translator checks it).
 * @see Gemini API reference: Generating content, Content, Counting tokens
 * @see Gemini API reference: Embeddings, Models
 */

/** Raw bytes with their IANA media type, inlined in the request. */
export interface InlineData {
  mimeType: string;
  /** base64 */
  data: string;
}

/** Data referenced by URI (Files API, `gs://`, or a public URL where the model supports it). */
export interface FileData {
  mimeType?: string;
  fileUri: string;
}

/**
 * One streamed argument of a function call (Vertex `streamFunctionCallArguments`):
 * `stringValue` fragments of one path are concatenated while `willContinue` is set.
 */
export interface PartialArg {
  jsonPath: string;
  stringValue?: string | null;
  numberValue?: number | null;
  boolValue?: boolean | null;
  nullValue?: unknown;
  willContinue?: boolean | null;
}

/** A function call predicted by the model. The Gemini API sends no `id` (gw mints one). */
export interface FunctionCall {
  id?: string;
  name?: string;
  args?: Record<string, unknown>;
  partialArgs?: PartialArg[];
  willContinue?: boolean;
}

/** The result of a function call, sent back in a `user` turn; `response` must be an object. */
export interface FunctionResponse {
  id?: string;
  name: string;
  response: Record<string, unknown>;
}

/**
 * One part of a Content. Exactly one data field is set; `thought` marks a thought summary
 * and `thoughtSignature` is the opaque token that must come back with the part it arrived on.
 */
export interface Part {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  inlineData?: InlineData;
  fileData?: FileData;
  functionCall?: FunctionCall;
  functionResponse?: FunctionResponse;
  executableCode?: unknown;
  codeExecutionResult?: unknown;
}

/** A turn: `user` or `model` (role is ignored in `systemInstruction`). */
export interface Content {
  role?: 'user' | 'model';
  parts: Part[];
}

export interface FunctionDeclaration {
  name: string;
  description?: string;
  /** Full JSON Schema, kept intact (the alternative `parameters` is an OpenAPI subset). */
  parametersJsonSchema?: Record<string, unknown>;
}

export interface Tool {
  functionDeclarations?: FunctionDeclaration[];
}

export type FunctionCallingMode = 'AUTO' | 'ANY' | 'NONE' | 'VALIDATED';

export interface ToolConfig {
  functionCallingConfig?: { mode?: FunctionCallingMode; allowedFunctionNames?: string[] };
}

/** @see Gemini API docs: Thinking */
export interface ThinkingConfig {
  thinkingBudget?: number;
  includeThoughts?: boolean;
}

/** @see Gemini API reference: GenerationConfig */
export interface GenerationConfig {
  stopSequences?: string[];
  responseMimeType?: string;
  responseJsonSchema?: Record<string, unknown>;
  candidateCount?: number;
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  thinkingConfig?: ThinkingConfig;
}

/** Body of `models/{model}:generateContent` and `:streamGenerateContent` (the model is in the URL). */
export interface GenerateContentRequest {
  contents: Content[];
  systemInstruction?: Content;
  tools?: Tool[];
  toolConfig?: ToolConfig;
  generationConfig?: GenerationConfig;
}

/** @see Gemini API reference: UsageMetadata */
export interface UsageMetadata {
  promptTokenCount?: number;
  cachedContentTokenCount?: number;
  candidatesTokenCount?: number;
  toolUsePromptTokenCount?: number;
  thoughtsTokenCount?: number;
  totalTokenCount?: number;
  [k: string]: unknown;
}

/** @see Gemini API reference: FinishReason */
export type GeminiFinishReason =
  | 'FINISH_REASON_UNSPECIFIED'
  | 'STOP'
  | 'MAX_TOKENS'
  | 'SAFETY'
  | 'RECITATION'
  | 'LANGUAGE'
  | 'OTHER'
  | 'BLOCKLIST'
  | 'PROHIBITED_CONTENT'
  | 'SPII'
  | 'MALFORMED_FUNCTION_CALL'
  | 'IMAGE_SAFETY'
  | 'IMAGE_PROHIBITED_CONTENT'
  | 'IMAGE_RECITATION'
  | 'IMAGE_OTHER'
  | 'UNEXPECTED_TOOL_CALL'
  | 'TOO_MANY_TOOL_CALLS'
  | (string & {});

export interface Candidate {
  content?: Partial<Content>;
  finishReason?: GeminiFinishReason;
  finishMessage?: string;
  index?: number;
  [k: string]: unknown;
}

/** A whole response; in `alt=sse` streams every event is one of these. */
export interface GenerateContentResponse {
  candidates?: Candidate[];
  promptFeedback?: { blockReason?: string; [k: string]: unknown };
  usageMetadata?: UsageMetadata;
  modelVersion?: string;
  responseId?: string;
  [k: string]: unknown;
}

/** @see Gemini API reference: EmbedContentRequest */
export interface EmbedContentRequest {
  /** `models/{model}` */
  model: string;
  content: Content;
  outputDimensionality?: number;
}

/** Body of `models/{model}:batchEmbedContents`. */
export interface BatchEmbedContentsRequest {
  requests: EmbedContentRequest[];
}

/** `usageMetadata` is reported by newer embedding models only. */
export interface BatchEmbedContentsResponse {
  embeddings: ContentEmbedding[];
  usageMetadata?: { promptTokenCount?: number; totalTokenCount?: number; [k: string]: unknown };
}

/** Google's error body (google.rpc.Status in JSON). */
export interface GoogleErrorBody {
  error: { code?: number; message?: string; status?: string; details?: Array<Record<string, unknown>> };
}

// ── inbound: what Gemini clients send gw, and gw's answers to them ─────────────────────

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
