/**
 * The per-request state the pipeline and every hook share.
 * A class (not an object literal) so V8 keeps one shape for all requests on the hot path.
 */
import type { Logger } from 'pino';
import type { GatewayError } from './errors.ts';
import type { Usage } from './format/chat.ts';

/** Which gateway route a request came in on. */
export type RouteName = 'chat' | 'embeddings' | 'messages';

/** The gateway key that authenticated the request; `name` is what accounting uses, never the secret. */
export interface KeyInfo {
  readonly name: string;
}

export class RequestContext {
  /** Request id, also sent as `x-request-id`. */
  readonly id: string;
  readonly route: RouteName;
  /** undefined when the gateway runs open (no keys configured). */
  readonly key: KeyInfo | undefined;
  /** The client's parsed JSON body (read-only for hooks; providers get their own copy when it must change). */
  readonly body: Record<string, unknown>;
  /** The client's body exactly as received (UTF-8 text); the cache hashes these bytes. */
  readonly rawBody: string;
  /** `model` as the client sent it. */
  readonly model: string;
  /** `model` after alias resolution; accounting and pricing use this. */
  readonly canonicalModel: string;
  readonly stream: boolean;
  /** performance.now() at arrival, ms. */
  readonly startedAt: number;
  readonly log: Logger;
  /** Name of the provider that answered (set at dispatch). */
  provider: string | undefined = undefined;
  /** Canonical model that answered: `canonicalModel`, or a `[fallbacks]` model. Accounting and pricing use this. */
  servedModel: string;
  /** Upstream calls made for this request, retries and fallbacks included (0 until dispatched). */
  attempts = 0;
  /** Latest usage the upstream reported, common semantics (set from the response or stream chunks). */
  usage: Usage | undefined = undefined;
  /** True when the response came from onCacheLookup. */
  cacheHit = false;
  /** HTTP status sent to the client (0 until decided). */
  status = 0;
  /** Time to first byte from the upstream, ms (streams). */
  upstreamMs = 0;
  /** Arrival to the first byte sent to the client, ms (streams; 0 until then). */
  firstByteMs = 0;
  /** The failure the request ended with, as onError saw it (undefined while it has not failed). */
  error: GatewayError | undefined = undefined;
  /** Extra response headers hooks ask for (e.g. `x-gw-cache: miss`); set them before dispatch. */
  responseHeaders: Record<string, string> | undefined = undefined;
  /** Scratch space for plugins; key by a symbol or your plugin name. */
  readonly state = new Map<string | symbol, unknown>();

  constructor(id: string, route: RouteName, key: KeyInfo | undefined, body: Record<string, unknown>, rawBody: string, model: string, canonicalModel: string, stream: boolean, startedAt: number, log: Logger) {
    this.id = id;
    this.route = route;
    this.key = key;
    this.body = body;
    this.rawBody = rawBody;
    this.model = model;
    this.canonicalModel = canonicalModel;
    this.servedModel = canonicalModel;
    this.stream = stream;
    this.startedAt = startedAt;
    this.log = log;
  }
}
