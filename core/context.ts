/** The per-request state the pipeline and every hook share: a class, so V8 keeps one shape on the hot path. */
import type { Logger } from 'pino';
import type { GatewayError } from './errors.ts';
import type { Usage } from '../lib/common/chat.ts';
import type { KeyInfo } from '../lib/keys.ts';
import type { ResolvedPrice } from '../lib/pricing/book.ts';
import type { Cost } from '../lib/pricing/cost.ts';
import { Edits } from '../lib/content/parts.ts';
import type { RequestContent } from '../lib/content/types.ts';
import { type ContentReader, EMPTY_REQUEST, READ_ONLY, requestContent } from '../lib/content/view.ts';

export type { KeyInfo };

/** What a request asks for, whatever its format: `generate`, `embed`, `count` (tokens) or `tool` (an MCP tools/call). */
export type Operation = 'generate' | 'embed' | 'count' | 'tool';

/** `gen_ai.operation.name` of the operations whose name no protocol chooses (count_tokens has no well-known value). */
const OPERATION_NAMES: Record<Exclude<Operation, 'generate'>, string> = { embed: 'embeddings', count: 'count_tokens', tool: 'execute_tool' };

/** The kernel's handle on a request's content reader (not in the SDK: plugins read `content()`). */
export const READER: unique symbol = Symbol('gw.reader');
/** Opens a request's content to edits for its onRequest taps, and closes it (answering whether a tap edited it). */
export const EDIT_WINDOW: unique symbol = Symbol('gw.editWindow');

/** What the kernel reads of a request's protocol (core/protocol.ts): its id, content reader and GenAI operation name. */
export interface RequestProtocol {
  readonly id: string;
  readonly content?: ContentReader;
  readonly operationName?: string;
}

/** What the client format tells the core about a request, read from its body in its own terms. */
export interface RequestFacts {
  /** Metrics and log label of the route, e.g. `chat`, `messages`, `responses`, `gemini`. */
  route: string;
  /** Client format id, e.g. `openai-chat`, `anthropic-messages`. */
  format: string;
  operation: Operation;
  /** `model` as the client sent it (body or URL). */
  model: string;
  stream: boolean;
  /** The request's output-token cap (`max_tokens`, `max_output_tokens`, `maxOutputTokens`…), if it set one. */
  maxOutputTokens?: number;
  /** Choices asked for (`n`, `candidateCount`); 1 when absent. */
  choices?: number;
  /** False when the answer must not come from or go to the cache (e.g. a request continuing stored state). */
  cacheable?: boolean;
}

export class RequestContext {
  /** Request id, also sent as `x-request-id`. */
  readonly id: string;
  /** Metrics and log label of the route (RequestFacts.route). */
  readonly route: string;
  /** Client format id (RequestFacts.format). */
  readonly format: string;
  readonly operation: Operation;
  /** The GenAI conventions' `gen_ai.operation.name`: `chat`, `generate_content` (Gemini), `embeddings`, `count_tokens`, `execute_tool` (MCP). */
  readonly operationName: string;
  /** undefined when the gateway runs open (no keys configured). */
  readonly key: KeyInfo | undefined;
  /** The client's parsed JSON body: read it; an onRequest tap rewrites its text through `content()`, never directly. */
  readonly body: Record<string, unknown>;
  /** The client's body exactly as received (UTF-8 text); the cache hashes these bytes. */
  readonly rawBody: string;
  /** `model` as the client sent it. */
  readonly model: string;
  /** `model` after alias resolution; accounting and pricing use this. */
  readonly canonicalModel: string;
  readonly stream: boolean;
  /** The request's output-token cap, if any (for budget reservations). */
  readonly maxOutputTokens: number | undefined;
  /** Choices asked for (≥ 1). */
  readonly choices: number;
  /** Whether the cache may answer or store this request (non-streaming `generate` only, and the format agrees). */
  readonly cacheable: boolean;
  /** performance.now() at arrival, ms. */
  readonly startedAt: number;
  readonly log: Logger;
  /** Name of the provider that answered (set at dispatch). */
  provider: string | undefined = undefined;
  /** Canonical model that answered: `canonicalModel`, or a `[fallbacks]` model. Accounting and pricing use this. */
  servedModel: string;
  /** Upstream calls made for this request, retries and fallbacks included (0 until dispatched). */
  attempts = 0;
  /** Latest usage the upstream reported, common semantics; for a stream that ended early (`partial`), what it is charged. */
  usage: Usage | undefined = undefined;
  /** True when an answer the upstream made did not reach the client whole (a stream that ended early after its first byte, an answer onAnswer refused): onError then charges `usage` as onResponse would (`chargeable(rc)`). */
  partial = false;
  /** True when `usage` is partly gw's estimate, not the upstream's count (only ever with `partial`). */
  usageEstimated = false;
  /** What the charged usage cost by part, USD, set before onResponse/onError: null when unpriced, undefined when nothing is charged. */
  cost: Cost | null | undefined = undefined;
  /** The price `cost` was computed at, with where it came from; null/undefined as `cost`. */
  price: ResolvedPrice | null | undefined = undefined;
  /** True when the response came from onCacheLookup. */
  cacheHit = false;
  /** HTTP status sent to the client (0 until decided). */
  status = 0;
  /** Time spent waiting for upstreams, ms (every attempt and backoff, then a stream's waits for events); the rest is gw's overhead. */
  upstreamMs = 0;
  /** Arrival to the first byte sent to the client, ms (streams; 0 until then). */
  firstByteMs = 0;
  /** The failure the request ended with, as onError saw it (undefined while it has not failed). */
  error: GatewayError | undefined = undefined;
  /** Extra response headers hooks ask for (e.g. `x-gw-cache: miss`); set them before dispatch. */
  responseHeaders: Record<string, string> | undefined = undefined;
  /** Scratch space for plugins; key by a symbol or your plugin name. Holds what onArrival taps kept. */
  readonly state: Map<string | symbol, unknown>;
  /** The trace the request belongs to (32 hex digits), when an onArrival tap named it (a tracing extension). */
  readonly traceId: string | undefined;
  /** Its format's content reader (core/protocol.ts); undefined: the empty view. */
  readonly [READER]: ContentReader | undefined;
  private view: RequestContent | undefined = undefined;
  private edits: Edits | undefined = undefined;
  private editing = false;

  constructor(
    id: string,
    facts: RequestFacts,
    key: KeyInfo | undefined,
    body: Record<string, unknown>,
    rawBody: string,
    canonicalModel: string,
    startedAt: number,
    log: Logger,
    state: Map<string | symbol, unknown> = new Map(),
    traceId?: string,
    protocol?: Omit<RequestProtocol, 'id'>,
  ) {
    this.id = id;
    this.route = facts.route;
    this.format = facts.format;
    this.operation = facts.operation;
    this.operationName = facts.operation === 'generate' ? (protocol?.operationName ?? 'chat') : OPERATION_NAMES[facts.operation];
    this.key = key;
    this.body = body;
    this.rawBody = rawBody;
    this.model = facts.model;
    this.canonicalModel = canonicalModel;
    this.servedModel = canonicalModel;
    this.stream = facts.stream;
    this.maxOutputTokens = facts.maxOutputTokens;
    this.choices = facts.choices ?? 1;
    this.cacheable = facts.operation === 'generate' && !facts.stream && facts.cacheable !== false;
    this.startedAt = startedAt;
    this.log = log;
    this.state = state;
    this.traceId = traceId;
    this[READER] = protocol?.content;
  }

  /** The request's content, format-free, read on first use; its parts may be set in onRequest (the edit goes upstream), nowhere else. */
  content(): RequestContent {
    if (this.view !== undefined) return this.view;
    const reader = this[READER];
    if (reader === undefined) return (this.view = EMPTY_REQUEST);
    // outside onRequest the view is read-only for good: the shared READ_ONLY state, no object of its own
    return (this.view = requestContent(reader, this.body, this.editing ? (this.edits = new Edits(true)) : READ_ONLY));
  }

  /** Opens (`true`) or closes edits of `content()`; on close, writes pending edits back and answers whether any part was set. */
  [EDIT_WINDOW](open: boolean): boolean {
    this.editing = open;
    const edits = this.edits;
    if (edits === undefined) return false;
    edits.writable = open;
    return !open && edits.commit();
  }
}
