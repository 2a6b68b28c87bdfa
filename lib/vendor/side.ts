/**
 * A wire protocol's vendor side: what a provider runs to call an upstream that speaks it, as
 * pure functions (lib/vendor/provider.ts does the I/O, once for every protocol).
 */
import type { GatewayError } from '../../core/errors.ts';
import type { ChatCompletion, ChatCompletionChunk, ChatRequest, EmbeddingsRequest, EmbeddingsResponse } from '../common/chat.ts';
import type { UpstreamErrorInfo } from '../http/client.ts';
import type { CallContext, SseEvent, StreamItem } from '../provider.ts';

/**
 * A stream step: one input in, zero or more outputs; `end` flushes what the step held. One
 * instance per stream, pure (no I/O). Vendor events → common chunks (`MessagesToCommonStep`),
 * common chunks → a client's events (`CommonToMessagesStep`), and the like.
 */
export interface StreamStep<In, Out> {
  /** One input → zero or more outputs. @throws GatewayError on an input that fails the stream (an error event, malformed data). */
  push(item: In): Out[];
  /** The input ended → the closing outputs. @throws GatewayError when the input was cut before its end. */
  end(): Out[];
}

/** A vendor's fix-up of parsed stream chunks, and the cheap test on a chunk's text that picks those that need it (the rest pass unparsed). */
export interface ChunkQuirk {
  chunkIf?(data: string): boolean;
  chunk(chunk: ChatCompletionChunk): ChatCompletionChunk[];
}

/** What a vendor side's answer readers are told: who answered, for which model, and how its errors read. */
export interface VendorEnv {
  readonly provider: string;
  readonly model: string;
  /** The GatewayError for an error the vendor answered with a 2xx (its error body), as the upstream client maps statuses. */
  errorFor(status: number, text: string): GatewayError;
}

/** A native call as a vendor side builds it: where it goes, whether it streams, and what to send. */
export interface NativeRequest {
  url: string;
  stream: boolean;
  /** The body, when it is not the client's bytes (`call.rawBody`) or the body object as the client sent it. */
  body?: unknown;
  /** Headers beside the provider's auth (content type, a protocol's version header). */
  headers: Readonly<Record<string, string>>;
  /** The event that ends a stream for good (the connection is drained for reuse). */
  isTerminal?(ev: SseEvent): boolean;
}

/**
 * Calling an upstream that speaks a protocol: pure functions of the common request, the
 * vendor's bodies and events. Every member but `endpoints` is optional: a protocol only ever
 * passed through (Responses) has no `chat`.
 */
export interface VendorSide {
  /** Reads the vendor's error body (default: OpenAI's `{error: {message, code, param}}`). */
  readError?(status: number, text: string): UpstreamErrorInfo;
  /** URLs at `origin`: chat (per model, streaming or not), embeddings, the first model-list page. */
  endpoints(origin: string): { chat?(model: string, stream: boolean): string; embeddings?(model: string): string; models?: string };
  /** Headers of a call beside the provider's auth (default JSON, and SSE accept for a stream); `call` undefined for discovery. */
  headers?(call: CallContext | undefined, stream: boolean): Record<string, string>;
  /** Chat through the common format. */
  readonly chat?: {
    /** Common request → vendor body; `call.rawBody` may be sent when the request is the client's body unchanged. */
    request(req: ChatRequest, call: CallContext): { body: unknown; warnings?: readonly string[] };
    /** A whole answer's text → a common completion; `raw` when the text is that completion unchanged. @throws UPSTREAM_MALFORMED, or the error a 2xx carries */
    answer(text: string, env: VendorEnv): { body: ChatCompletion; raw?: string };
    /** Vendor events → common chunks, one step per stream (a small state machine). */
    step?(env: VendorEnv): StreamStep<SseEvent, ChatCompletionChunk>;
    /** Or the whole stream as a generator, where events go on as text (the common format: no array per event); `quirk` rewrites the chunks it picks. */
    forward?(events: AsyncIterable<SseEvent>, env: VendorEnv, quirk?: ChunkQuirk): AsyncIterable<StreamItem>;
    /** The event that ends a stream for good. */
    isTerminal?(ev: SseEvent): boolean;
  };
  /** The native call of this protocol's own clients (passthrough) for operation `op` (undefined: the main one). @throws GatewayError 400 for an `op` it does not serve */
  native?(op: string | undefined, body: Record<string, unknown>, call: CallContext, origin: string): NativeRequest;
  /** Embeddings: the common request → the vendor's body, and its answer back (default: the common shape itself). */
  readonly embeddings?: {
    request(req: EmbeddingsRequest, call: CallContext): unknown;
    answer(text: string, req: EmbeddingsRequest, env: VendorEnv): { body: EmbeddingsResponse; raw?: string };
  };
  /** Model discovery: one page's ids and the next page's URL; `maxPages` bounds a server that repeats tokens. */
  readonly models?: { page(body: unknown, origin: string): { items: string[]; next?: string } | undefined; readonly maxPages?: number };
}
