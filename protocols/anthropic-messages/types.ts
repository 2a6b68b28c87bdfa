/**
 * The Messages format (POST /v1/messages), the second API format gw accepts from clients.
 * Typed loosely on purpose: passthrough forwards bodies unchanged, and translators read
 * only the fields they map.
 * @see Anthropic API: Messages; Anthropic docs: Streaming Messages
 */

export type MessagesContentBlock =
  | { type: 'text'; text: string; [k: string]: unknown }
  | { type: 'image'; source: { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string }; [k: string]: unknown }
  | { type: 'tool_use'; id: string; name: string; input: unknown; [k: string]: unknown }
  | { type: 'tool_result'; tool_use_id: string; content?: string | MessagesContentBlock[]; is_error?: boolean; [k: string]: unknown }
  | { type: 'thinking'; thinking: string; signature?: string; [k: string]: unknown }
  | { type: 'redacted_thinking'; data: string; [k: string]: unknown }
  | { type: string; [k: string]: unknown };

export interface MessagesMessage {
  role: 'user' | 'assistant' | (string & {});
  content: string | MessagesContentBlock[];
  [k: string]: unknown;
}

export interface MessagesTool {
  name: string;
  description?: string;
  input_schema?: Record<string, unknown>;
  type?: string;
  [k: string]: unknown;
}

/** Body of POST /v1/messages. `max_tokens` is required by the format. */
export interface MessagesRequest {
  model: string;
  messages: MessagesMessage[];
  max_tokens: number;
  system?: string | Array<{ type: 'text'; text: string; [k: string]: unknown }>;
  stream?: boolean;
  stop_sequences?: string[];
  temperature?: number;
  top_p?: number;
  top_k?: number;
  tools?: MessagesTool[];
  tool_choice?: { type: 'auto' | 'any' | 'none' | 'tool'; name?: string; disable_parallel_tool_use?: boolean };
  metadata?: { user_id?: string; [k: string]: unknown };
  thinking?: { type: string; budget_tokens?: number; [k: string]: unknown };
  [k: string]: unknown;
}

/** Messages usage: `input_tokens` excludes cache reads and writes, which are counted apart. */
export interface MessagesUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  /** The cache writes by TTL (they add up to `cache_creation_input_tokens`); sent since the 1-hour TTL exists. */
  cache_creation?: { ephemeral_5m_input_tokens?: number | null; ephemeral_1h_input_tokens?: number | null; [k: string]: unknown } | null;
  [k: string]: unknown;
}

export type StopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'pause_turn' | 'refusal' | (string & {});

/** A non-streaming Messages response. */
export interface MessagesResponse {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: MessagesContentBlock[];
  stop_reason: StopReason | null;
  stop_sequence: string | null;
  usage: MessagesUsage;
  [k: string]: unknown;
}

/** One Messages stream event; the SSE `event:` name equals `type`. */
export type MessagesStreamEvent =
  | { type: 'message_start'; message: MessagesResponse }
  | { type: 'content_block_start'; index: number; content_block: MessagesContentBlock }
  | {
      type: 'content_block_delta';
      index: number;
      delta:
        | { type: 'text_delta'; text: string }
        | { type: 'input_json_delta'; partial_json: string }
        | { type: 'thinking_delta'; thinking: string }
        | { type: 'signature_delta'; signature: string }
        | { type: string; [k: string]: unknown };
    }
  | { type: 'content_block_stop'; index: number }
  | { type: 'message_delta'; delta: { stop_reason: StopReason | null; stop_sequence?: string | null; [k: string]: unknown }; usage: Partial<MessagesUsage> }
  | { type: 'message_stop' }
  | { type: 'ping' }
  | { type: 'error'; error: { type: string; message: string } };

/** The error body gw answers with on /v1/messages. */
export interface MessagesErrorBody {
  type: 'error';
  error: { type: string; message: string };
}
