/**
 * The common format: OpenAI chat completions and embeddings, as gw's clients speak them.
 * Only the fields gw reads or writes are typed; every object stays open (`[k: string]: unknown`)
 * because unknown fields pass through to common-format upstreams unchanged.
 * @see OpenAI API reference: Create chat completion; OpenAI's OpenAPI document (openapi.json: CreateChatCompletionRequest/Response/StreamResponse)
 */

/** A content part of a user/system/assistant message. */
export type ContentPart =
  | { type: 'text'; text: string; [k: string]: unknown }
  | { type: 'image_url'; image_url: { url: string; detail?: string }; [k: string]: unknown }
  | { type: string; [k: string]: unknown };

/** One tool call on an assistant message; `arguments` is a JSON-encoded string. */
export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
  [k: string]: unknown;
}

/** A chat message. `reasoning_content` is the DeepSeek/Qwen/GLM convention for model thinking. */
export interface ChatMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool' | 'function' | (string & {});
  content?: string | ContentPart[] | null;
  name?: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  reasoning_content?: string | null;
  refusal?: string | null;
  [k: string]: unknown;
}

/** A function tool declaration; `parameters` is a JSON Schema object. */
export interface ChatTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean | null };
  [k: string]: unknown;
}

export type ToolChoice = 'none' | 'auto' | 'required' | { type: 'function'; function: { name: string } };

/** Body of POST /v1/chat/completions. */
export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  stream?: boolean | null;
  stream_options?: { include_usage?: boolean; [k: string]: unknown } | null;
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  temperature?: number | null;
  top_p?: number | null;
  n?: number | null;
  stop?: string | string[] | null;
  tools?: ChatTool[];
  tool_choice?: ToolChoice;
  parallel_tool_calls?: boolean;
  response_format?: {
    type: 'text' | 'json_object' | 'json_schema' | (string & {});
    json_schema?: { name?: string; schema?: Record<string, unknown>; strict?: boolean | null; description?: string };
    [k: string]: unknown;
  };
  reasoning_effort?: string | null;
  user?: string;
  seed?: number | null;
  [k: string]: unknown;
}

/**
 * Token usage in OpenAI's semantics, what every vendor's counts map to. Details are parts of
 * their totals, never added: `prompt_tokens` holds cached reads and cache writes (every TTL;
 * `cache_write_1h_tokens` the 1-hour part when reported), `completion_tokens` the reasoning.
 */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: {
    cached_tokens?: number;
    cache_write_tokens?: number;
    cache_write_1h_tokens?: number;
    [k: string]: unknown;
  } | null;
  completion_tokens_details?: { reasoning_tokens?: number; [k: string]: unknown } | null;
  [k: string]: unknown;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call' | (string & {});

/** A non-streaming response of POST /v1/chat/completions. */
export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: Array<{ index: number; message: ChatMessage; finish_reason: FinishReason | null; logprobs?: unknown; [k: string]: unknown }>;
  usage?: Usage | null;
  [k: string]: unknown;
}

/** A tool call fragment inside a chunk delta; `index` identifies the call across chunks. */
export interface ToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function?: { name?: string; arguments?: string };
  [k: string]: unknown;
}

/** One streamed fragment (`object: "chat.completion.chunk"`). */
export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: Array<{
    index: number;
    delta: {
      role?: string;
      content?: string | null;
      reasoning_content?: string | null;
      tool_calls?: ToolCallDelta[];
      refusal?: string | null;
      [k: string]: unknown;
    };
    finish_reason: FinishReason | null;
    logprobs?: unknown;
    [k: string]: unknown;
  }>;
  usage?: Usage | null;
  [k: string]: unknown;
}

/** Body of POST /v1/embeddings. `input` is a string, strings, or token arrays. */
export interface EmbeddingsRequest {
  model: string;
  input: string | string[] | number[] | number[][];
  encoding_format?: 'float' | 'base64';
  dimensions?: number;
  user?: string;
  [k: string]: unknown;
}

/** Response of POST /v1/embeddings. `embedding` is floats, or base64 little-endian float32 when asked. */
export interface EmbeddingsResponse {
  object: 'list';
  data: Array<{ object: 'embedding'; index: number; embedding: number[] | string }>;
  model: string;
  usage: { prompt_tokens: number; total_tokens: number };
  [k: string]: unknown;
}

/** The OpenAI error body gw answers with on every route but /v1/messages. */
export interface OpenAIErrorBody {
  error: { message: string; type: string; code: string | null; param: string | null; [k: string]: unknown };
}
