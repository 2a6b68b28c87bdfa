/**
 * The provider contract: what a provider plugin's `setup` returns and what the core calls.
 * The core never looks inside a provider; translation is the provider's business.
 */
import type { Logger } from 'pino';
import type { ChatCompletion, ChatCompletionChunk, ChatRequest, EmbeddingsRequest, EmbeddingsResponse } from './common/chat.ts';

/** Per-call context the core hands a provider. */
export interface CallContext {
  /** Aborted when the client disconnects or the provider timeout fires: stop the upstream call. */
  signal: AbortSignal;
  /** The gateway logger; include `requestId` in what you log. */
  log: Logger;
  /** The gateway request id (`x-request-id`), for provider logs (e.g. translation warnings). */
  requestId?: string;
  /** Incoming request headers (lower-case names), e.g. for `anthropic-version` forwarding. */
  headers: Record<string, string | string[] | undefined>;
  /**
   * The client's body bytes, when the body the provider got is unchanged from them
   * (no alias rewrite, no added fields): a common-format upstream may send these as-is.
   */
  rawBody: string | undefined;
  /** Query string of the incoming request without `?` ('' when none). */
  query: string;
  /**
   * True for a large request (lib/turns.ts): pass it on as the upstream call's
   * `large`, so serializing a translated body is a turn of the event loop of its own.
   */
  large?: boolean;
  /**
   * Headers this attempt adds to its upstream requests (an onUpstreamStart tap's, e.g. a
   * child `traceparent`). The upstream client adds them itself; only a provider that sends
   * requests with a client of its own adds them.
   */
  upstreamHeaders?: Readonly<Record<string, string>>;
}

/**
 * One item of a translated or passed-through chat stream: a chunk object, or the JSON text
 * of a chunk exactly as a common-format upstream sent it (forwarded byte for byte, parsed
 * only if a hook needs it). Providers always end a stream with a usage chunk
 * (`choices: []`, `usage`) when the upstream reported usage; the core forwards that chunk
 * only if the client asked for `stream_options.include_usage`. A provider may send usage
 * chunks earlier too, with what the upstream reported so far (Anthropic's `message_start`,
 * Gemini's running `usageMetadata`): the last one wins, and a stream that ends early is
 * charged from it.
 */
export type StreamItem = ChatCompletionChunk | string;

/** Result of a chat call: a whole completion or a stream. */
export type ChatResult =
  | { type: 'json'; body: ChatCompletion /** exact upstream bytes when `body` is unchanged from them */; raw?: string }
  | { type: 'stream'; chunks: AsyncIterable<StreamItem> };

/** One SSE event, text as the upstream sent it. */
export interface SseEvent {
  event: string | undefined;
  data: string;
}

/** Result of a native passthrough: the upstream's answer, bytes or events unchanged. */
export type NativeResult = { type: 'json'; status: number; raw: string; contentType: string } | { type: 'stream'; events: AsyncIterable<SseEvent> };

/**
 * A native passthrough for one client format: the client's body (with `model` canonical;
 * `call.rawBody` its bytes when unchanged) sent to the upstream's own endpoint for that
 * format's operation `op` (the format names them: `messages`, `count_tokens`,
 * `generateContent`…; absent = the format's main one), the answer handed back unchanged.
 * Throws GatewayError for an error answer, and 400 `operation_unsupported`-style errors
 * for an `op` the upstream does not have.
 */
export type NativeCall = (body: Record<string, unknown>, call: CallContext, op?: string) => Promise<NativeResult>;

/**
 * A configured provider (one `[providers.<name>]` section or a runtime-created one).
 * Methods throw GatewayError for upstream failures (status/message kept) and honour `call.signal`.
 */
export interface Provider {
  readonly name: string;
  readonly kind: string;
  /** Model ids served; filled by `listModels` when the config gave none. */
  models: string[];
  /** The upstream's model list (discovery). Throws GatewayError naming the URL and status that failed. */
  listModels?(signal?: AbortSignal): Promise<string[]>;
  /** POST /v1/chat/completions. `req.model` is the canonical model id. */
  chat(req: ChatRequest, call: CallContext): Promise<ChatResult>;
  /** POST /v1/embeddings; absent → 400 "provider has no embeddings". `raw`: exact upstream bytes when `body` is unchanged from them. */
  embeddings?(req: EmbeddingsRequest, call: CallContext): Promise<{ body: EmbeddingsResponse; raw?: string }>;
  /**
   * Native passthroughs by client format id (e.g. `anthropic-messages` for kinds with a
   * Messages origin, `openai-responses` for openai and azure). A format without an entry
   * here is translated through the common format and `chat`.
   */
  native?: Readonly<Record<string, NativeCall>>;
  /** Release pooled connections. */
  close?(): Promise<void>;
}
