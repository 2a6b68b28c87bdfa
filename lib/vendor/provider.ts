/**
 * The one vendor loop: a provider built from a protocol's vendor side plus settings and small
 * quirks (the AI SDK's openai-compatible idea). Chat: the side's request → one upstream call →
 * its answer, or its stream through the side's step (or forwarded as text); embeddings and
 * discovery the same way; a native passthrough per protocol the vendor speaks (native-call.ts).
 * Each protocol gets the provider's own upstream client for its error shape (`setup.http`), so
 * exchange observers (the recorder) and a replay transport see every call.
 */
import type { ChatCompletion, ChatCompletionChunk, ChatRequest, EmbeddingsRequest } from '../common/chat.ts';
import type { ClientSettings, UpstreamClient } from '../http/client.ts';
import type { CallContext, ChatResult, NativeCall, Provider, SseEvent, StreamItem } from '../provider.ts';
import { nativeCall } from './native-call.ts';
import type { StreamStep, VendorEnv, VendorSide } from './side.ts';

/** What of a provider's setup the loop uses (ProviderSetup fits). */
export interface VendorSetup {
  readonly name: string;
  readonly config: { readonly kind?: string; readonly models?: string[]; readonly timeout_seconds: number };
  /** The provider's upstream client on the gateway's pool, one per error shape. */
  http(opts: Pick<ClientSettings, 'timeoutMs' | 'readError'>): UpstreamClient;
}

/** A protocol as the loop calls it: its id (`Provider.native`'s key), its label (log lines), its vendor side. */
export interface VendorProtocol {
  readonly id: string;
  readonly label?: string;
  readonly vendor?: VendorSide;
}

/** A vendor's fix-ups of the common format: its request, its stream chunks (those `chunkIf` picks), its completions. */
export interface VendorQuirks {
  /** Rewrites the common request (vendor knobs); must not mutate its input. The client's bytes are then not sent. */
  request?(req: ChatRequest): ChatRequest;
  /** Cheap test on a chunk's text: false → the chunk passes unparsed, skipping `chunk`. */
  chunkIf?(data: string): boolean;
  chunk?(chunk: ChatCompletionChunk): ChatCompletionChunk[];
  /** Rewrites a completion; the same object keeps the upstream's bytes. */
  completion?(res: ChatCompletion): ChatCompletion;
}

/** A protocol the vendor also serves natively to its own clients (passthrough), at its own origin and auth when they differ. */
export interface VendorNative {
  readonly protocol: VendorProtocol;
  readonly origin?: string;
  readonly auth?: Readonly<Record<string, string>>;
  /** Wraps the native call; `drop()` removes it from the provider (later requests are translated). */
  wrap?(call: NativeCall, drop: () => void): NativeCall;
}

/** A vendor provider's settings. */
export interface VendorSettings {
  /** The protocol chat, embeddings and discovery go through. */
  readonly protocol: VendorProtocol;
  /** Its base URL (`config.base_url` or the vendor's default), as the protocol's endpoints take it. */
  readonly origin: string;
  /** Sent on every call (`authorization`, `x-api-key`…). */
  readonly auth: Readonly<Record<string, string>>;
  /** URLs of its own (Azure's deployments), instead of the protocol's endpoints. */
  url?(op: 'chat' | 'embeddings' | 'models', model: string): string;
  readonly quirks?: VendorQuirks;
  /** Native passthroughs; default: the protocol itself when its vendor side has `native`. */
  readonly native?: readonly VendorNative[];
}

const JSON_HEADERS = Object.freeze({ 'content-type': 'application/json' });
const SSE_HEADERS = Object.freeze({ 'content-type': 'application/json', accept: 'text/event-stream' });

/**
 * A provider for a vendor that speaks `s.protocol` (see the file comment).
 * @throws Error at setup when the protocol has no vendor side
 */
export function vendorProvider(setup: VendorSetup, s: VendorSettings): Provider {
  const { name, config } = setup;
  const side = s.protocol.vendor;
  if (side === undefined) throw new Error(`protocol ${s.protocol.id} has no vendor side`);
  const timeoutMs = config.timeout_seconds * 1000;
  const http = setup.http({ timeoutMs, readError: side.readError });
  const auth = s.auth;
  const ep = side.endpoints(s.origin);
  const quirks = s.quirks;
  const label = s.protocol.label ?? s.protocol.id;
  const errorFor = (status: number, text: string) => http.errorFor(status, text);
  const jsonHeaders = { ...auth, ...JSON_HEADERS };
  const sseHeaders = { ...auth, ...SSE_HEADERS };
  // a side with headers of its own (Messages: the client's anthropic-version) builds them per call
  const headersOf = (call: CallContext | undefined, stream: boolean): Record<string, string> =>
    side.headers ? { ...auth, ...side.headers(call, stream) } : stream ? sseHeaders : jsonHeaders;
  const chunkQuirk = quirks?.chunk && { chunkIf: quirks.chunkIf, chunk: quirks.chunk };
  const urlOf = (op: 'chat' | 'embeddings', model: string, stream: boolean): string => {
    const url = s.url ? s.url(op, model) : op === 'chat' ? ep.chat?.(model, stream) : ep.embeddings?.(model);
    if (url === undefined) throw new Error(`protocol ${s.protocol.id} has no ${op} endpoint`);
    return url;
  };

  async function chat(req: ChatRequest, call: CallContext): Promise<ChatResult> {
    const chatSide = side!.chat!;
    if (quirks?.request) {
      req = quirks.request(req);
      call = { ...call, rawBody: undefined };
    }
    const stream = req.stream === true;
    const { body, warnings } = chatSide.request(req, call);
    if (warnings?.length && call.log.isLevelEnabled('debug'))
      call.log.debug({ req: call.requestId, provider: name, warnings }, `chat fields degraded in translation to ${label}`);
    const url = urlOf('chat', req.model, stream);
    const res = await http.send(url, { headers: headersOf(call, stream), body, signal: call.signal, log: call.log, large: call.large });
    const env: VendorEnv = { provider: name, model: req.model, errorFor };
    if (!stream) {
      const answer = chatSide.answer(await http.text(res, url, call.signal), env);
      const mapped = quirks?.completion ? quirks.completion(answer.body) : answer.body;
      return mapped === answer.body ? { type: 'json', body: mapped, raw: answer.raw } : { type: 'json', body: mapped };
    }
    const events = await http.events(res, url, call.signal, chatSide.isTerminal);
    if (chatSide.forward) return { type: 'stream', chunks: chatSide.forward(events, env, chunkQuirk) };
    return { type: 'stream', chunks: stepped(events, chatSide.step!(env), quirks?.chunk) };
  }

  const provider: Provider = { name, kind: config.kind ?? name, models: config.models ?? [], chat };

  const embeddingsSide = side.embeddings;
  if (embeddingsSide !== undefined && (s.url !== undefined || ep.embeddings !== undefined)) {
    provider.embeddings = async (req: EmbeddingsRequest, call: CallContext) => {
      const url = urlOf('embeddings', req.model, false);
      const res = await http.send(url, { headers: headersOf(call, false), body: embeddingsSide.request(req, call), signal: call.signal, log: call.log });
      return embeddingsSide.answer(await http.text(res, url, call.signal), req, { provider: name, model: req.model, errorFor });
    };
  }

  const modelsSide = side.models;
  const first = s.url ? s.url('models', '') : ep.models;
  if (modelsSide !== undefined && first !== undefined) {
    const headers = side.headers ? headersOf(undefined, false) : auth;
    provider.listModels = (signal) =>
      http.pages(first, headers, (body) => modelsSide.page(body, s.origin), { signal, maxPages: modelsSide.maxPages }).then((ids) => [...new Set(ids)]);
  }

  const natives = s.native ?? (side.native ? [{ protocol: s.protocol }] : []);
  if (natives.length > 0) {
    const native: Record<string, NativeCall> = {};
    for (const n of natives) {
      const nativeSide = n.protocol.vendor;
      if (nativeSide?.native === undefined) throw new Error(`protocol ${n.protocol.id} has no native call`);
      const client = nativeSide === side ? http : setup.http({ timeoutMs, readError: nativeSide.readError });
      const id = n.protocol.id;
      const call = nativeCall(client, nativeSide as Required<Pick<VendorSide, 'native'>>, n.origin ?? s.origin, n.auth ?? auth);
      native[id] = n.wrap
        ? n.wrap(call, () => {
            delete native[id];
          })
        : call;
    }
    provider.native = native;
  }
  return provider;
}

/** A vendor's events through its step, as common chunks; `quirk` rewrites each. */
async function* stepped(
  events: AsyncIterable<SseEvent>,
  step: StreamStep<SseEvent, ChatCompletionChunk>,
  quirk: VendorQuirks['chunk'],
): AsyncGenerator<StreamItem> {
  for await (const ev of events) {
    if (quirk === undefined) yield* step.push(ev);
    else for (const chunk of step.push(ev)) yield* quirk(chunk);
  }
  if (quirk === undefined) yield* step.end();
  else for (const chunk of step.end()) yield* quirk(chunk);
}
