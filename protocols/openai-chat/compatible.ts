/**
 * A provider for any upstream that speaks the common format (OpenAI chat completions):
 * OpenAI itself, self-defined kinds (vLLM, Ollama, LM Studio…), and vendors that are
 * "settings plus small hooks" on top of it (azure, dashscope, zhipu). Bodies and chunks
 * pass through untouched wherever nothing needs to change.
 * @see https://platform.openai.com/docs/api-reference/chat/create
 * @see https://platform.openai.com/docs/api-reference/chat-streaming
 */
import {
  type CallContext,
  type ChatCompletion,
  type ChatCompletionChunk,
  type ChatRequest,
  type ChatResult,
  type EmbeddingsRequest,
  type EmbeddingsResponse,
  errors,
  type GatewayError,
  type NativeCall,
  type Provider,
  type StreamItem,
  type UpstreamClient,
  type UpstreamResponse,
} from 'gw/plugin';
import { isBlank, malformedEvent, objectFramed, parseEventObject } from 'gw/plugin/format';
import { modelIds } from './models.ts';

/** Settings of a common-format provider; every hook is optional. */
export interface CompatibleSettings {
  name: string;
  kind: string;
  /** Origin with version prefix, e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  models: string[];
  /** The provider's upstream client (timeout, pool, error reading). */
  http: UpstreamClient;
  /** Auth and other headers sent on every call. */
  headers: Record<string, string>;
  /** URL of an operation; defaults to `${baseUrl}/chat/completions` etc. */
  url?: (op: 'chat' | 'embeddings' | 'models', model: string) => string;
  /** Rewrites the outgoing chat body (vendor knobs); must not mutate its input. */
  prepareChat?: (req: ChatRequest) => ChatRequest;
  /** Rewrites one parsed stream chunk into the chunks to emit (vendor stream quirks). */
  mapChunk?: (chunk: ChatCompletionChunk) => ChatCompletionChunk[];
  /** Cheap test on a chunk's raw text: false → the chunk passes unparsed, skipping `mapChunk`. */
  mapChunkIf?: (data: string) => boolean;
  /** Rewrites a parsed non-streaming completion (vendor quirks); returning the same object keeps the upstream bytes. */
  mapCompletion?: (res: ChatCompletion) => ChatCompletion;
  /** Native passthroughs by client format id (a Messages origin, the Responses API…). */
  native?: Record<string, NativeCall>;
}

/** Creates the provider. */
export function createCompatibleProvider(s: CompatibleSettings): Provider {
  const base = s.baseUrl.replace(/\/+$/, '');
  const url = s.url ?? ((op: string) => `${base}/${op === 'chat' ? 'chat/completions' : op}`);
  const jsonHeaders = { ...s.headers, 'content-type': 'application/json' };

  async function chat(req: ChatRequest, call: CallContext): Promise<ChatResult> {
    const stream = req.stream === true;
    // the client's bytes when they can go as they came; else the object, which the upstream
    // client serializes in a task of its own (lib/turns.ts)
    let body: string | ChatRequest;
    if (s.prepareChat) req = s.prepareChat(req);
    if (stream && (req.stream_options as { include_usage?: boolean } | null | undefined)?.include_usage !== true) {
      // gw always asks for usage so accounting is exact; the core hides it from clients that did not ask
      body = { ...req, stream_options: { ...(req.stream_options ?? {}), include_usage: true } };
    } else {
      body = !s.prepareChat && call.rawBody !== undefined ? call.rawBody : req;
    }
    const u = url('chat', req.model);
    const http = s.http;
    const res = await http.send(u, {
      headers: stream ? { ...jsonHeaders, accept: 'text/event-stream' } : jsonHeaders,
      body,
      signal: call.signal,
      log: call.log,
      large: call.large,
    });
    if (!stream) {
      const text = await http.text(res, u, call.signal);
      const parsed = parseJson(text) as ChatCompletion | undefined;
      if (parsed && typeof parsed === 'object' && 'error' in parsed && !('choices' in parsed)) throw http.errorFor(500, text);
      if (!parsed || !Array.isArray(parsed.choices))
        throw errors.UPSTREAM_MALFORMED({ provider: s.name, what: `a completion without choices: ${text.slice(0, 200)}` }, { provider: s.name });
      if (s.mapCompletion) {
        const mapped = s.mapCompletion(parsed);
        if (mapped !== parsed) return { type: 'json', body: mapped };
      }
      return { type: 'json', body: parsed, raw: text };
    }
    return { type: 'stream', chunks: streamItems(res, u, call.signal) };
  }

  /** The JSON of a body, undefined when it is not JSON. */
  function parseJson(text: string): unknown {
    try {
      return JSON.parse(text);
    } catch {
      return undefined;
    }
  }

  async function* streamItems(res: UpstreamResponse, u: string, signal: AbortSignal): AsyncGenerator<StreamItem> {
    const map = s.mapChunk;
    const mapIf = s.mapChunkIf;
    let done = false;
    for await (const ev of await s.http.events(res, u, signal, (e) => e.data === '[DONE]')) {
      const data = ev.data;
      if (data === '[DONE]') {
        done = true;
        break;
      }
      if (ev.event === 'error' || data.startsWith('{"error"')) throw upstreamStreamError(s.name, data);
      // lib/common/sse-data.ts: blank data is no chunk; anything not framed as an object is malformed
      if (!objectFramed(data)) {
        if (isBlank(data)) continue;
        throw malformedEvent(s.name, data, 'a stream chunk that is not a JSON object');
      }
      if (!map || (mapIf && !mapIf(data))) {
        yield data;
        continue;
      }
      yield* map(parseEventObject<ChatCompletionChunk>(data, s.name, 'a stream chunk that is not a JSON object'));
    }
    if (!done) throw errors.UPSTREAM_TRUNCATED({ provider: s.name, expected: '[DONE]' }, { provider: s.name });
  }

  async function embeddings(req: EmbeddingsRequest, call: CallContext): Promise<{ body: EmbeddingsResponse; raw?: string }> {
    const u = url('embeddings', req.model);
    const res = await s.http.send(u, { headers: jsonHeaders, body: call.rawBody ?? req, signal: call.signal, log: call.log });
    const text = await s.http.text(res, u, call.signal);
    const body = parseJson(text) as EmbeddingsResponse | undefined;
    if (!body || !Array.isArray(body.data))
      throw errors.UPSTREAM_MALFORMED({ provider: s.name, what: `an embeddings response without data: ${text.slice(0, 200)}` }, { provider: s.name });
    return { body, raw: text };
  }

  function listModels(signal?: AbortSignal): Promise<string[]> {
    return s.http.pages(
      url('models', ''),
      s.headers,
      (body) => {
        const items = modelIds(body);
        return items && { items };
      },
      { signal, maxPages: 1 },
    );
  }

  const provider: Provider = { name: s.name, kind: s.kind, models: s.models, chat, embeddings, listModels };
  if (s.native) provider.native = s.native;
  return provider;
}

/** An error event inside a common-format stream (`data: {"error": …}`) → 502 `upstream_error`, the upstream's code kept. */
function upstreamStreamError(provider: string, data: string): GatewayError {
  let message = data.slice(0, 200);
  let code: string | undefined;
  try {
    const e = (JSON.parse(data) as { error?: { message?: string; code?: unknown } }).error;
    if (e?.message) message = e.message;
    if (e?.code != null) code = String(e.code);
  } catch {
    // keep the raw snippet
  }
  const err = errors.UPSTREAM_ERROR(`provider ${provider} failed mid-stream: ${message}`, { provider });
  if (code) err.upstreamCode = code;
  return err;
}
