/** The provider contract: what a provider plugin's `setup` returns; translation is the provider's business. */
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
  /** The client's body bytes when the body is unchanged from them: a common-format upstream may send these as-is. */
  rawBody: string | undefined;
  /** Query string of the incoming request without `?` ('' when none). */
  query: string;
  /** A large request (lib/turns.ts): pass it on as the upstream call's `large`. */
  large?: boolean;
  /** Headers this attempt adds upstream (a child `traceparent`): the upstream client adds them; a client of your own must. */
  upstreamHeaders?: Readonly<Record<string, string>>;
}

/**
 * A chat stream's item: a chunk, or a chunk's JSON text as a common-format upstream sent it.
 * A stream ends with a usage chunk (`choices: []`) when the upstream reported usage; earlier
 * usage chunks may carry what is known so far (the last wins, an early end is charged from it).
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
 * A native passthrough for one client format: the body (`model` canonical) sent to the
 * upstream's endpoint for operation `op` (`count_tokens`…; absent: the main one), the answer
 * handed back unchanged. @throws GatewayError for an error answer or an `op` it lacks.
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
  /** Native passthroughs by client format id (`anthropic-messages`…); other formats are translated through `chat`. */
  native?: Readonly<Record<string, NativeCall>>;
  /** Release pooled connections. */
  close?(): Promise<void>;
}
