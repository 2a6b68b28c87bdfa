/**
 * The OpenAI Responses API wire format (POST /v1/responses), as far as gw reads or writes it.
 * Every object stays open (`[k: string]: unknown`): native passthrough forwards bodies
 * unchanged, and the translators read only the fields they map.
 * @see OpenAI API reference: Responses
 * @see OpenAI's OpenAPI document (openapi.json: CreateResponse, Response, ResponseStreamEvent, InputItem, OutputItem, Tool)
 */

// ---------------------------------------------------------------------------------------------
// Request

/** A content part of an input message (`input_*`), or of assistant history (`output_text`, `refusal`). */
export type ResponsesInputContent =
  | { type: 'input_text'; text: string; [k: string]: unknown }
  | { type: 'input_image'; image_url?: string | null; file_id?: string | null; detail?: string; [k: string]: unknown }
  | { type: 'input_file'; file_data?: string; file_url?: string; file_id?: string | null; filename?: string; [k: string]: unknown }
  | { type: 'output_text'; text: string; [k: string]: unknown }
  | { type: 'refusal'; refusal: string; [k: string]: unknown }
  | { type: string; [k: string]: unknown };

/** A message item; `type` may be omitted (EasyInputMessage). */
export interface ResponsesInputMessage {
  type?: 'message';
  role: 'user' | 'assistant' | 'system' | 'developer' | (string & {});
  content: string | ResponsesInputContent[];
  id?: string;
  status?: string;
  [k: string]: unknown;
}

/** A function call the model made earlier (history), or that gw returns in `output`. */
export interface ResponsesFunctionCall {
  type: 'function_call';
  /** The item id (`fc_…`); distinct from `call_id`. */
  id?: string;
  call_id: string;
  name: string;
  /** Set when the function belongs to a `namespace` tool. */
  namespace?: string;
  /** JSON-encoded arguments. */
  arguments: string;
  status?: 'in_progress' | 'completed' | 'incomplete';
  [k: string]: unknown;
}

/** The client's answer to a function call. */
export interface ResponsesFunctionCallOutput {
  type: 'function_call_output';
  id?: string | null;
  call_id: string;
  output: string | ResponsesInputContent[];
  name?: string | null;
  namespace?: string | null;
  status?: string | null;
  [k: string]: unknown;
}

/** Reasoning content: `reasoning_text` is raw thinking, `summary_text` a summary. */
export interface ResponsesReasoningItem {
  type: 'reasoning';
  id: string;
  summary: Array<{ type: 'summary_text'; text: string; [k: string]: unknown }>;
  content?: Array<{ type: 'reasoning_text'; text: string; [k: string]: unknown }>;
  encrypted_content?: string | null;
  status?: 'in_progress' | 'completed' | 'incomplete';
  [k: string]: unknown;
}

/** Items gw reads from `input`; any other `type` (built-in tool calls, references…) is open. */
export type ResponsesInputItem =
  | ResponsesInputMessage
  | ResponsesFunctionCall
  | ResponsesFunctionCallOutput
  | ResponsesReasoningItem
  | { type: string; [k: string]: unknown };

/** A function tool; `parameters` is a JSON Schema object. */
export interface ResponsesFunctionTool {
  type: 'function';
  name: string;
  description?: string | null;
  parameters?: Record<string, unknown> | null;
  strict?: boolean | null;
  [k: string]: unknown;
}

/** A group of function (or custom) tools; the model calls them as `{namespace, name}` (Codex's `multi_agent_v1`). */
export interface ResponsesNamespaceTool {
  type: 'namespace';
  name: string;
  description?: string;
  tools: Array<ResponsesFunctionTool | { type: string; name?: string; [k: string]: unknown }>;
  [k: string]: unknown;
}

/** Function and namespace tools, and the built-in tools (web_search, file_search, mcp, custom…) as open objects. */
export type ResponsesTool = ResponsesFunctionTool | ResponsesNamespaceTool | { type: string; [k: string]: unknown };

export type ResponsesToolChoice =
  | 'none'
  | 'auto'
  | 'required'
  | { type: 'function'; name: string; [k: string]: unknown }
  | { type: 'allowed_tools'; mode: 'auto' | 'required'; tools: Array<{ type: string; name?: string; [k: string]: unknown }>; [k: string]: unknown }
  | { type: string; [k: string]: unknown };

/** `text.format`: plain text, JSON mode, or a JSON Schema (Structured Outputs). */
export type ResponsesTextFormat =
  | { type: 'text'; [k: string]: unknown }
  | { type: 'json_object'; [k: string]: unknown }
  | { type: 'json_schema'; name: string; schema: Record<string, unknown>; strict?: boolean | null; description?: string; [k: string]: unknown };

/** Body of POST /v1/responses. */
export interface ResponsesRequest {
  model: string;
  input?: string | ResponsesInputItem[];
  instructions?: string | null;
  tools?: ResponsesTool[];
  tool_choice?: ResponsesToolChoice;
  parallel_tool_calls?: boolean | null;
  max_output_tokens?: number | null;
  temperature?: number | null;
  top_p?: number | null;
  text?: { format?: ResponsesTextFormat; verbosity?: string | null; [k: string]: unknown } | null;
  reasoning?: { effort?: string | null; summary?: string | null; [k: string]: unknown } | null;
  stream?: boolean | null;
  store?: boolean | null;
  previous_response_id?: string | null;
  metadata?: Record<string, string> | null;
  user?: string;
  include?: string[] | null;
  [k: string]: unknown;
}

// ---------------------------------------------------------------------------------------------
// Response

export interface ResponsesOutputText {
  type: 'output_text';
  text: string;
  annotations: unknown[];
  logprobs: unknown[];
  [k: string]: unknown;
}

export interface ResponsesRefusal {
  type: 'refusal';
  refusal: string;
  [k: string]: unknown;
}

export interface ResponsesReasoningText {
  type: 'reasoning_text';
  text: string;
  [k: string]: unknown;
}

/** An assistant message in `output`. */
export interface ResponsesOutputMessage {
  type: 'message';
  id: string;
  status: 'in_progress' | 'completed' | 'incomplete';
  role: 'assistant';
  content: Array<ResponsesOutputText | ResponsesRefusal>;
  [k: string]: unknown;
}

/** Output items gw produces when translating; native responses may hold any other type. */
export type ResponsesOutputItem =
  | ResponsesOutputMessage
  | (ResponsesFunctionCall & { id: string; status: 'in_progress' | 'completed' | 'incomplete' })
  | ResponsesReasoningItem;

/**
 * Token usage. `input_tokens` includes cached tokens and `output_tokens` includes reasoning
 * tokens (the same semantics as the common format's prompt/completion tokens).
 */
export interface ResponsesUsage {
  input_tokens: number;
  /** `cache_write_tokens` / `cache_write_1h_tokens`: gw's names for prompt-cache writes (OpenAI sends neither). */
  input_tokens_details: { cached_tokens: number; cache_write_tokens?: number; cache_write_1h_tokens?: number; [k: string]: unknown };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number; [k: string]: unknown };
  total_tokens: number;
  [k: string]: unknown;
}

export type ResponsesStatus = 'completed' | 'failed' | 'in_progress' | 'cancelled' | 'queued' | 'incomplete';

/** The Response object: the body of a non-streaming answer, and the `response` of lifecycle events. */
export interface ResponsesResponse {
  id: string;
  object: 'response';
  created_at: number;
  status: ResponsesStatus;
  completed_at: number | null;
  error: { code: string; message: string } | null;
  incomplete_details: { reason: 'max_output_tokens' | 'content_filter' } | null;
  instructions: string | null;
  max_output_tokens: number | null;
  model: string;
  output: ResponsesOutputItem[];
  parallel_tool_calls: boolean;
  previous_response_id: string | null;
  reasoning: { effort: string | null; summary: string | null; [k: string]: unknown };
  store: boolean;
  temperature: number | null;
  text: { format: ResponsesTextFormat; [k: string]: unknown };
  tool_choice: ResponsesToolChoice;
  tools: ResponsesTool[];
  top_p: number | null;
  truncation: string;
  usage: ResponsesUsage | null;
  user: string | null;
  metadata: Record<string, string>;
  [k: string]: unknown;
}

// ---------------------------------------------------------------------------------------------
// Stream events (each carries a `sequence_number` increasing by one from 0)

type Seq = { sequence_number: number };
type At = { item_id: string; output_index: number };

export type ResponsesStreamEvent =
  | ({
      type: 'response.created' | 'response.in_progress' | 'response.completed' | 'response.incomplete' | 'response.failed';
      response: ResponsesResponse;
    } & Seq)
  | ({ type: 'response.output_item.added' | 'response.output_item.done'; output_index: number; item: ResponsesOutputItem } & Seq)
  | ({
      type: 'response.content_part.added' | 'response.content_part.done';
      content_index: number;
      part: ResponsesOutputText | ResponsesRefusal | ResponsesReasoningText;
    } & At &
      Seq)
  | ({ type: 'response.output_text.delta'; content_index: number; delta: string; logprobs: unknown[] } & At & Seq)
  | ({ type: 'response.output_text.done'; content_index: number; text: string; logprobs: unknown[] } & At & Seq)
  | ({ type: 'response.refusal.delta'; content_index: number; delta: string } & At & Seq)
  | ({ type: 'response.refusal.done'; content_index: number; refusal: string } & At & Seq)
  | ({ type: 'response.reasoning_text.delta'; content_index: number; delta: string } & At & Seq)
  | ({ type: 'response.reasoning_text.done'; content_index: number; text: string } & At & Seq)
  | ({ type: 'response.function_call_arguments.delta'; delta: string } & At & Seq)
  | ({ type: 'response.function_call_arguments.done'; name: string; arguments: string } & At & Seq)
  | ({
      type: 'error';
      code: string | null;
      message: string;
      param: string | null;
      error?: { type: string; code: string | null; message: string; param: string | null };
    } & Seq);

/** The `type` values of {@link ResponsesStreamEvent}. */
export type ResponsesStreamEventType = ResponsesStreamEvent['type'];
