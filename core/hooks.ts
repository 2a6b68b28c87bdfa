/**
 * The hook pipeline: thirteen tapable hooks on one frozen object, tapped once at startup in
 * `[extensions.*]` order. When each runs and what it may return: docs/plugins.md "Hooks".
 */
import type { IncomingHttpHeaders } from 'node:http';
import { AsyncSeriesBailHook, AsyncSeriesHook, SyncHook, type Tap } from 'tapable';
import type { KeysChange, Notice } from '../lib/gateway-info.ts';
import type { KeyInfo, RequestContext } from './context.ts';
import { PLUGIN_CONTRACT } from './error-codes.ts';
import type { GatewayError } from './errors.ts';
import type { AnswerContent, EventContent } from '../lib/content/types.ts';
import { type EventStep, EventSteps } from '../lib/content/steps.ts';
import { ResponseInfo } from '../lib/content/response-info.ts';

/** An answer decided by a hook: JSON `body` (object, or pre-serialized text), status and headers. */
export interface EarlyResponse {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** A cached non-streaming answer: the exact bytes to send. */
export interface CachedResponse {
  body: string;
  headers?: Record<string, string>;
}

export { ResponseInfo };

/** Chunk types by client format id, added by each format's module augmentation (docs/plugins.md). */
// biome-ignore lint/suspicious/noEmptyInterface: filled by augmentation
export interface ChunkTypes {}

/**
 * A chunk as it leaves for the client, discriminated by its format: `data` its JSON text when
 * gw has it unparsed (`value` parsed on first read), undefined when gw built it. Reused: never keep it.
 */
export type Chunk = keyof ChunkTypes extends never
  ? { readonly format: string; readonly value: unknown; readonly data?: string } & ChunkContent
  : { [F in keyof ChunkTypes]: { readonly format: F; readonly value: ChunkTypes[F]; readonly data?: string } & ChunkContent }[keyof ChunkTypes];

/** What every chunk says format-free. */
export interface ChunkContent {
  /** What the chunk adds (text, tool-argument pieces, finish reasons), read on first call; read-only. */
  content(): EventContent;
  /** False when the chunk's text shows it carries no finish reason (no parse): a filter before `content().finish`. */
  mightFinish(): boolean;
}

/** A gateway request that is over, as the app's boundary saw it (onFinish). */
export interface FinishedRequest {
  /** Request id, as sent in `x-request-id`. */
  readonly id: string;
  /** The route's metrics label (`chat`, `messages`, `responses`…). */
  readonly route: string;
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
  /** The trace the request belongs to (32 hex digits), when an onArrival tap named it; else undefined. */
  readonly traceId?: string;
  /** The request's plugin state: `rc.state`, or for a request refused before admission what onArrival taps kept; undefined when there is none. */
  readonly state?: Map<string | symbol, unknown>;
}

/** A gateway request as it arrives (onArrival): before auth, before its body is read. */
export interface ArrivingRequest {
  /** Request id, as sent in `x-request-id`. */
  readonly id: string;
  /** The route's metrics label (`chat`, `messages`, `responses`…). */
  readonly route: string;
  readonly method: string;
  /** The route's path as registered (`/v1/chat/completions`, `/v1beta/models/:model`…), never the raw URL (it may carry `?key=`). */
  readonly path: string;
  /** Incoming headers (lower-case names). They carry the client's credentials: read what you need, never log or keep them whole. */
  readonly headers: IncomingHttpHeaders;
  /** Arrival, epoch ms. */
  readonly time: number;
  /** The request's plugin state: the same Map is `rc.state` once admitted, and FinishedRequest.state. */
  readonly state: Map<string | symbol, unknown>;
  /** The trace this request belongs to (32 lower-case hex digits): a tracing tap sets it; `rc.traceId` and FinishedRequest.traceId carry it. */
  traceId: string | undefined;
  /** Adds a header to whatever answer the request gets (JSON, stream, error). */
  setHeader(name: string, value: string): void;
}

/** One upstream attempt (onUpstreamStart, then onUpstreamEnd with the same object); retries and fallbacks are attempts of their own. */
export interface UpstreamAttempt {
  /** The provider's name (its config section) and kind. */
  readonly provider: string;
  readonly kind: string;
  /** The canonical model asked of it: `rc.canonicalModel`, or a `[fallbacks]` model. */
  readonly model: string;
  /** True when `model` is a `[fallbacks]` model. */
  readonly fallback: boolean;
  /** 1 for the request's first attempt, counting every retry and fallback (`rc.attempts` after it). */
  readonly number: number;
  /** 0 for the first try on this provider and model, then 1, 2… for its retries. */
  readonly retry: number;
  /** performance.now() when it started, ms. */
  readonly startedAt: number;
  /** Headers an onUpstreamStart tap adds to the attempt's upstream requests (lower-case; the provider's own win; `call.upstreamHeaders`). */
  headers: Record<string, string> | undefined;
  /** performance.now() when it ended, ms (0 until onUpstreamEnd). */
  endedAt: number;
  /** `ok`: the upstream answered (a stream: its first event arrived); `error`: it failed (see `error`). undefined until onUpstreamEnd. */
  outcome: 'ok' | 'error' | undefined;
  /** What the attempt failed with (a GatewayError for every upstream failure; anything else is a bug). */
  error: unknown;
}

export interface Hooks {
  /** Before dispatch: `undefined` goes on, an EarlyResponse answers, a thrown GatewayError refuses; `rc.content()` edits are honoured here. */
  readonly onRequest: AsyncSeriesBailHook<[RequestContext], EarlyResponse | undefined>;
  /** Cacheable requests only (`rc.cacheable`), after onRequest: a CachedResponse answers (`rc.cacheHit`), `undefined` goes on. */
  readonly onCacheLookup: AsyncSeriesBailHook<[RequestContext], CachedResponse | undefined>;
  /** A whole answer from an upstream or the cache (not an early answer) before onResponse: its parts may be set (the body is then serialized again, once); a thrown GatewayError answers instead. */
  readonly onAnswer: AsyncSeriesHook<[RequestContext, AnswerContent]>;
  /** Once per stream before its first frame: a tap adds an EventStep (lib/content/steps.ts) every event then goes through before onChunk. */
  readonly onStream: SyncHook<[RequestContext, EventStep[]]>;
  /** A successful answer, awaited before its last byte (cache hits and EarlyResponses too: no provider, no usage). Commit durable state here. */
  readonly onResponse: AsyncSeriesHook<[RequestContext, ResponseInfo]>;
  /** Every stream chunk as it passes to the client, in its format. Hot path: synchronous, no I/O; the holder is reused, never keep it. */
  readonly onChunk: SyncHook<[RequestContext, Chunk]>;
  /** A failed request; observes only. A stream cut after its first byte has `rc.partial` and its charged usage (`chargeable(rc)`). */
  readonly onError: AsyncSeriesHook<[RequestContext, GatewayError]>;
  /** Every gateway request once it is over, refused ones (401, 400, 413, 415, 404) included. Synchronous and cheap: I/O in the background. */
  readonly onFinish: SyncHook<[FinishedRequest]>;
  /** Every gateway request as it arrives, before auth and its body: read a `traceparent`, keep state, name the trace, add response headers. */
  readonly onArrival: SyncHook<[ArrivingRequest]>;
  /** Each upstream attempt (retries and fallbacks included) as it starts: `attempt.headers` adds upstream request headers. */
  readonly onUpstreamStart: SyncHook<[RequestContext, UpstreamAttempt]>;
  /** The same attempt as it ends; a stream's attempt ends at its first event. */
  readonly onUpstreamEnd: SyncHook<[RequestContext, UpstreamAttempt]>;
  /** Outside requests: keys' settings changed (KeysChange says when the host calls it). Synchronous: I/O in the background. */
  readonly onKeysChange: SyncHook<[KeysChange]>;
  /** A plugin tells the others a fact outside any request (`hooks.onNotice.call(notice)`). Synchronous. */
  readonly onNotice: SyncHook<[Notice]>;
}

/** True for an EarlyResponse: an object with a numeric status and a body. */
export function isEarlyResponse(v: unknown): v is EarlyResponse {
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof (v as EarlyResponse).status === 'number' &&
    (v as EarlyResponse).status >= 100 &&
    (v as EarlyResponse).status < 600 &&
    'body' in v
  );
}

/** True for a CachedResponse: an object with a string body. */
export function isCachedResponse(v: unknown): v is CachedResponse {
  return typeof v === 'object' && v !== null && typeof (v as CachedResponse).body === 'string';
}

/** A fresh hooks object; one per gateway instance. */
export function createHooks(): Hooks {
  const onRequest = new AsyncSeriesBailHook<[RequestContext], EarlyResponse | undefined>(['rc'], 'onRequest');
  const onCacheLookup = new AsyncSeriesBailHook<[RequestContext], CachedResponse | undefined>(['rc'], 'onCacheLookup');
  enforceBail(onRequest, 'onRequest', isEarlyResponse, 'undefined or an EarlyResponse {status, body}');
  enforceBail(onCacheLookup, 'onCacheLookup', isCachedResponse, 'undefined or a CachedResponse {body: string}');
  return Object.freeze({
    onRequest,
    onCacheLookup,
    onAnswer: new AsyncSeriesHook<[RequestContext, AnswerContent]>(['rc', 'answer'], 'onAnswer'),
    onStream: new SyncHook<[RequestContext, EventStep[]]>(['rc', 'steps'], 'onStream'),
    onResponse: new AsyncSeriesHook<[RequestContext, ResponseInfo]>(['rc', 'info'], 'onResponse'),
    onChunk: new SyncHook<[RequestContext, Chunk]>(['rc', 'chunk'], 'onChunk'),
    onError: new AsyncSeriesHook<[RequestContext, GatewayError]>(['rc', 'error'], 'onError'),
    onFinish: new SyncHook<[FinishedRequest]>(['finished'], 'onFinish'),
    onArrival: new SyncHook<[ArrivingRequest]>(['arrival'], 'onArrival'),
    onUpstreamStart: new SyncHook<[RequestContext, UpstreamAttempt]>(['rc', 'attempt'], 'onUpstreamStart'),
    onUpstreamEnd: new SyncHook<[RequestContext, UpstreamAttempt]>(['rc', 'attempt'], 'onUpstreamEnd'),
    onKeysChange: new SyncHook<[KeysChange]>(['change'], 'onKeysChange'),
    onNotice: new SyncHook<[Notice]>(['notice'], 'onNotice'),
  });
}

/** The steps onStream taps add to `rc`'s stream, chained; undefined when none (the frame loops then run as without the hook). */
export function streamSteps(hooks: Hooks, rc: RequestContext): EventSteps | undefined {
  if (!hooks.onStream.isUsed()) return undefined;
  const steps: EventStep[] = [];
  hooks.onStream.call(rc, steps);
  return steps.length === 0 ? undefined : new EventSteps(steps);
}

/** Runs onResponse/onError taps: in place (undefined) when all are sync and none intercepts, else tapable's promise. @throws what a sync tap throws. */
export function runSeries<A, B>(hook: AsyncSeriesHook<[A, B]>, a: A, b: B): Promise<void> | undefined {
  const taps = hook.taps;
  if (hook.interceptors.length > 0) return hook.promise(a, b);
  for (let i = 0; i < taps.length; i++) if (taps[i]!.type !== 'sync') return hook.promise(a, b);
  for (let i = 0; i < taps.length; i++) (taps[i]!.fn as (a: A, b: B) => void)(a, b);
  return undefined;
}

/** Wraps each bail tap: neither `undefined` nor a valid answer throws PLUGIN_CONTRACT (tapable would stop at `null` and skip later taps). */
function enforceBail<T>(hook: AsyncSeriesBailHook<[RequestContext], T | undefined>, name: string, valid: (v: unknown) => boolean, expected: string): void {
  hook.intercept({
    register(tap) {
      const t = tap as Tap & { fn?: unknown; type: string };
      const fn = t.fn as ((rc: RequestContext) => unknown) | undefined;
      if (!fn) return tap;
      const check = (v: unknown): unknown => {
        if (v === undefined || valid(v)) return v;
        throw PLUGIN_CONTRACT({ plugin: t.name, hook: name, detail: `a tap must return ${expected}, got ${describe(v)}` });
      };
      if (t.type === 'promise') t.fn = (rc: RequestContext) => Promise.resolve(fn(rc)).then(check);
      else if (t.type === 'sync') t.fn = (rc: RequestContext) => check(fn(rc));
      else {
        // callback taps: (rc, callback(err, result))
        t.fn = (rc: RequestContext, cb: (err: unknown, v?: unknown) => void) =>
          (fn as unknown as (rc: RequestContext, cb: (err: unknown, v?: unknown) => void) => void)(rc, (err, v) => {
            if (err) return cb(err);
            try {
              cb(null, check(v));
            } catch (e) {
              cb(e);
            }
          });
      }
      return tap;
    },
  });
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'object') return Array.isArray(v) ? 'an array' : 'an object without a valid answer shape';
  return `${typeof v} ${JSON.stringify(v)?.slice(0, 40)}`;
}
