/**
 * A provider for any upstream that speaks the common format (OpenAI chat completions):
 * OpenAI itself, self-defined kinds (vLLM, Ollama, LM Studio…), and vendors that are
 * "settings plus small hooks" on top of it (azure, dashscope, zhipu). Bodies and chunks
 * pass through untouched wherever nothing needs to change.
 * @see https://platform.openai.com/docs/api-reference/chat/create
 * @see https://platform.openai.com/docs/api-reference/chat-streaming
 */
import type { Logger } from 'pino';
import { GatewayError } from '../../../core/errors.ts';
import type { ChatCompletion, ChatCompletionChunk, ChatRequest, EmbeddingsRequest, EmbeddingsResponse } from '../../../core/format/chat.ts';
import { sseEvents } from '../../../core/http/sse-parse.ts';
import { callUpstream, parseUpstreamJson, readBody, releaseBody, type UpstreamResponse } from '../../../core/http/upstream.ts';
import type { CallContext, ChatResult, MessagesResult, Provider, StreamItem } from '../../../core/provider.ts';
import { mapCompatibleError } from './map-error.ts';

/** Settings of a common-format provider; every hook is optional. */
export interface CompatibleSettings {
  name: string;
  kind: string;
  /** Origin with version prefix, e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  models: string[];
  /** Time to headers and longest gap between stream chunks, ms. */
  timeoutMs: number;
  log: Logger;
  /** Auth and other headers sent on every call (default: the caller gives them). */
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
  /** Native Messages passthrough, when the vendor has a Messages origin. */
  messages?: (body: Record<string, unknown>, call: CallContext) => Promise<MessagesResult>;
}

/** Creates the provider. */
export function createCompatibleProvider(s: CompatibleSettings): Provider {
  const base = s.baseUrl.replace(/\/+$/, '');
  const url = s.url ?? ((op: string) => `${base}/${op === 'chat' ? 'chat/completions' : op}`);
  const jsonHeaders = { ...s.headers, 'content-type': 'application/json' };

  async function fail(res: UpstreamResponse, u: string, signal?: AbortSignal): Promise<never> {
    const text = await readBody(res, s.name, u, s.timeoutMs, signal).catch(() => '');
    const ra = res.headers['retry-after'];
    throw mapCompatibleError(s.name, res.statusCode, text, Array.isArray(ra) ? ra[0] : ra);
  }

  async function chat(req: ChatRequest, call: CallContext): Promise<ChatResult> {
    const stream = req.stream === true;
    let body: string;
    if (s.prepareChat) req = s.prepareChat(req);
    if (stream && (req.stream_options as { include_usage?: boolean } | null | undefined)?.include_usage !== true) {
      // gw always asks for usage so accounting is exact; the core hides it from clients that did not ask
      body = JSON.stringify({ ...req, stream_options: { ...(req.stream_options ?? {}), include_usage: true } });
    } else {
      body = !s.prepareChat && call.rawBody !== undefined ? call.rawBody : JSON.stringify(req);
    }
    const u = url('chat', req.model);
    const res = await callUpstream(u, { headers: stream ? { ...jsonHeaders, accept: 'text/event-stream' } : jsonHeaders, body, signal: call.signal, timeoutMs: s.timeoutMs, provider: s.name, log: call.log });
    if (res.statusCode >= 400) return fail(res, u, call.signal);
    if (!stream) {
      const text = await readBody(res, s.name, u, s.timeoutMs, call.signal);
      const parsed = parseUpstreamJson<ChatCompletion>(text, s.name);
      if (parsed && typeof parsed === 'object' && 'error' in parsed && !('choices' in parsed)) throw mapCompatibleError(s.name, 500, text);
      if (!parsed || !Array.isArray(parsed.choices)) throw new GatewayError(502, `provider ${s.name} sent a completion without choices`, { code: 'upstream_malformed', provider: s.name });
      if (s.mapCompletion) {
        const mapped = s.mapCompletion(parsed);
        if (mapped !== parsed) return { type: 'json', body: mapped };
      }
      return { type: 'json', body: parsed, raw: text };
    }
    const ct = String(res.headers['content-type'] ?? '');
    if (!ct.includes('text/event-stream')) {
      const text = await readBody(res, s.name, u, s.timeoutMs, call.signal).catch(() => '');
      throw new GatewayError(502, `provider ${s.name} answered a stream request with ${ct || 'no content type'}: ${text.slice(0, 200)}`, { code: 'upstream_malformed', provider: s.name });
    }
    return { type: 'stream', chunks: streamItems(res, u, call.signal) };
  }

  async function* streamItems(res: UpstreamResponse, u: string, signal: AbortSignal): AsyncGenerator<StreamItem> {
    const map = s.mapChunk;
    const mapIf = s.mapChunkIf;
    let done = false;
    try {
      for await (const ev of sseEvents(res.body, s.name, u, s.timeoutMs, signal)) {
        const data = ev.data;
        if (data === '[DONE]') {
          done = true;
          break;
        }
        if (ev.event === 'error' || data.startsWith('{"error"')) throw upstreamStreamError(s.name, data);
        if (!map || (mapIf && !mapIf(data))) {
          yield data;
          continue;
        }
        let chunk: ChatCompletionChunk;
        try {
          chunk = JSON.parse(data) as ChatCompletionChunk;
        } catch {
          throw new GatewayError(502, `provider ${s.name} sent a malformed stream chunk: ${data.slice(0, 200)}`, { code: 'upstream_malformed', provider: s.name });
        }
        yield* map(chunk);
      }
    } finally {
      // a stream we stop reading early (client gone, error) must not stall the pool; one
      // that sent [DONE] is drained so its connection is reused
      releaseBody(res, done);
    }
    if (!done) throw new GatewayError(502, `provider ${s.name} ended the stream without [DONE]`, { code: 'upstream_truncated', provider: s.name });
  }

  async function embeddings(req: EmbeddingsRequest, call: CallContext): Promise<{ body: EmbeddingsResponse; raw?: string }> {
    const u = url('embeddings', req.model);
    const res = await callUpstream(u, { headers: jsonHeaders, body: call.rawBody ?? JSON.stringify(req), signal: call.signal, timeoutMs: s.timeoutMs, provider: s.name, log: call.log });
    if (res.statusCode >= 400) return fail(res, u, call.signal);
    const text = await readBody(res, s.name, u, s.timeoutMs, call.signal);
    const body = parseUpstreamJson<EmbeddingsResponse>(text, s.name);
    if (!body || !Array.isArray(body.data)) throw new GatewayError(502, `provider ${s.name} sent an embeddings response without data`, { code: 'upstream_malformed', provider: s.name });
    return { body, raw: text };
  }

  async function listModels(signal?: AbortSignal): Promise<string[]> {
    const u = url('models', '');
    const res = await callUpstream(u, { method: 'GET', headers: s.headers, signal, timeoutMs: Math.min(s.timeoutMs, 15_000), provider: s.name, log: s.log });
    const text = await readBody(res, s.name, u, s.timeoutMs, signal);
    if (res.statusCode >= 400) throw new GatewayError(502, `model discovery failed: GET ${u} answered HTTP ${res.statusCode}: ${text.slice(0, 200)}`, { code: 'discovery_failed', upstreamStatus: res.statusCode, provider: s.name });
    const body = parseUpstreamJson<{ data?: Array<{ id?: unknown }> }>(text, s.name);
    if (!Array.isArray(body?.data)) throw new GatewayError(502, `model discovery failed: GET ${u} returned no data array`, { code: 'discovery_failed', provider: s.name });
    return body.data.map((m) => m.id).filter((id): id is string => typeof id === 'string');
  }

  const provider: Provider = { name: s.name, kind: s.kind, models: s.models, chat, embeddings, listModels };
  if (s.messages) provider.messages = s.messages;
  return provider;
}

/** An error event inside a common-format stream (`data: {"error": …}`) → GatewayError 502. */
function upstreamStreamError(provider: string, data: string): GatewayError {
  let message = data.slice(0, 200);
  let code: string | null = 'upstream_error';
  try {
    const e = (JSON.parse(data) as { error?: { message?: string; code?: unknown } }).error;
    if (e?.message) message = e.message;
    if (e?.code != null) code = String(e.code);
  } catch {
    // keep the raw snippet
  }
  return new GatewayError(502, `provider ${provider} failed mid-stream: ${message}`, { code, provider });
}
