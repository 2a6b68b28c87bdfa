/**
 * The hook pipeline: six tapable hooks on one frozen object, tapped once at startup in
 * `[extensions.*]` config order (tapable cannot remove a tap; never tap per request).
 *
 *   onRequest      AsyncSeriesBail  before dispatch, after auth and model resolution.
 *                  Return an EarlyResponse to answer without calling the upstream, or
 *                  throw GatewayError (e.g. 429 from rate_limit/budget). Later taps are skipped.
 *   onCacheLookup  AsyncSeriesBail  non-streaming chat only, after onRequest. Return a
 *                  CachedResponse to answer from cache; `rc.cacheHit` is then true.
 *   onResponse     AsyncSeries      after a successful response, awaited BEFORE its last byte
 *                  is sent: non-streaming when the body is known; streaming when the upstream
 *                  stream ended, before `[DONE]`/`message_stop` goes out. `rc.usage` holds the
 *                  upstream-reported usage. Also runs for cache hits (`rc.cacheHit`) and for
 *                  an onRequest tap's EarlyResponse (`rc.status` set, no `rc.provider`, no
 *                  usage), so an accounting tap must skip those. Commit durable state here.
 *   onChunk        Sync             every stream chunk, in order, as it passes to the client:
 *                  the common chunk on chat, the Messages event object on /v1/messages.
 *                  `rc.usage` is updated before the call when the chunk carried usage.
 *                  Hot path: synchronous, no I/O, no allocation you can avoid.
 *   onError        AsyncSeries      a request failed (provider error, timeout, mid-stream
 *                  failure, a client that disconnected (499), or a GatewayError thrown by a
 *                  hook); observes only. Every request that reached onRequest ends in exactly
 *                  one of onResponse/onError (onError also when onResponse itself threw).
 *   onFinish       Sync             every gateway request once it is over (after a stream's
 *                  last byte; as a JSON answer is handed to the socket), refused ones
 *                  included: 401, 400, 413, 415 and 404 never reach onRequest but do reach
 *                  this. Observes only: synchronous, cheap; do I/O in the background.
 */
import { AsyncSeriesBailHook, AsyncSeriesHook, SyncHook } from 'tapable';
import type { KeyInfo, RequestContext, RouteName } from './context.ts';
import type { GatewayError } from './errors.ts';

/** An answer decided by a hook: JSON `body` (object, or pre-serialized text), status and headers. */
export interface EarlyResponse {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** A cached non-streaming chat completion: the exact bytes to send. */
export interface CachedResponse {
  body: string;
  headers?: Record<string, string>;
}

/** What onResponse sees: the JSON body for non-streaming responses (undefined for streams). */
export interface ResponseInfo {
  /** Serialized response body as sent to the client (non-streaming only). */
  body: string | undefined;
}

/** A gateway request that is over, as the app's boundary saw it (onFinish). */
export interface FinishedRequest {
  /** Request id, as sent in `x-request-id`. */
  readonly id: string;
  readonly route: RouteName;
  /** Arrival, epoch ms. */
  readonly time: number;
  /** Arrival to the last byte (streams) or to the answer handed to the socket (JSON), ms. */
  readonly totalMs: number;
  /** Arrival to the first byte sent to the client, ms (`totalMs` for a JSON answer). */
  readonly ttfbMs: number;
  /** HTTP status sent; 499 when the client left; a stream's error status when it failed after its first byte. */
  readonly status: number;
  /** The key that authenticated the request; undefined on an open gateway or when auth refused it. */
  readonly key: KeyInfo | undefined;
  /** `model` as the client sent it, when the body was parsed (undefined for 401, 413, 415…). */
  readonly model: string | undefined;
  /** The request's context; undefined when it was refused before admission (auth, body). */
  readonly rc: RequestContext | undefined;
  /** What it failed with (before or after its first byte); undefined when it succeeded. */
  readonly error: GatewayError | undefined;
  /** The request body as received, when it was parsed (for plugins that log bodies; never log it by default). */
  readonly rawBody: string | undefined;
}

export interface Hooks {
  readonly onRequest: AsyncSeriesBailHook<[RequestContext], EarlyResponse | undefined>;
  readonly onCacheLookup: AsyncSeriesBailHook<[RequestContext], CachedResponse | undefined>;
  readonly onResponse: AsyncSeriesHook<[RequestContext, ResponseInfo]>;
  readonly onChunk: SyncHook<[RequestContext, unknown]>;
  readonly onError: AsyncSeriesHook<[RequestContext, GatewayError]>;
  readonly onFinish: SyncHook<[FinishedRequest]>;
}

/** A fresh hooks object; one per gateway instance. */
export function createHooks(): Hooks {
  return Object.freeze({
    onRequest: new AsyncSeriesBailHook<[RequestContext], EarlyResponse | undefined>(['rc'], 'onRequest'),
    onCacheLookup: new AsyncSeriesBailHook<[RequestContext], CachedResponse | undefined>(['rc'], 'onCacheLookup'),
    onResponse: new AsyncSeriesHook<[RequestContext, ResponseInfo]>(['rc', 'info'], 'onResponse'),
    onChunk: new SyncHook<[RequestContext, unknown]>(['rc', 'chunk'], 'onChunk'),
    onError: new AsyncSeriesHook<[RequestContext, GatewayError]>(['rc', 'error'], 'onError'),
    onFinish: new SyncHook<[FinishedRequest]>(['finished'], 'onFinish'),
  });
}
