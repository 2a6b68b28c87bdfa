/**
 * The HTTP side of the `gemini` kind: the Provider contract on top of the pure translation
 * functions of this folder. Auth is `x-goog-api-key`; streams use `alt=sse` (each event a
 * whole GenerateContentResponse, CRLF framing, no terminator) and are piped chunk by chunk.
 * /v1/messages has no native Gemini endpoint: without a `messages()` method the core
 * translates Messages ⇄ common format around `chat`.
 *
 * @see https://ai.google.dev/api/generate-content
 * @see https://ai.google.dev/api/embeddings#method:-models.batchembedcontents
 * @see https://ai.google.dev/api/models#method:-models.list
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { GatewayError } from '../../../core/errors.ts';
import type { ChatCompletionChunk, ChatRequest, EmbeddingsRequest, EmbeddingsResponse } from '../../../core/format/chat.ts';
import { sseEvents } from '../../../core/http/sse-parse.ts';
import { callUpstream, parseUpstreamJson, readBody, redactUrl, releaseBody, snippet, type UpstreamResponse } from '../../../core/http/upstream.ts';
import type { CallContext, ChatResult, Provider } from '../../../core/provider.ts';
import { embeddingInputs, fromBatchEmbedResponse, toBatchEmbedRequest } from './embeddings.ts';
import { geminiEndpoints } from './endpoints.ts';
import { fromGeminiResponse } from './from-gemini-response.ts';
import { readModelsPage, type ListModelsPage } from './list-models.ts';
import { httpError, malformed, streamError } from './provider-errors.ts';
import { GeminiStreamMapper, type StreamMeta } from './stream-mapper.ts';
import { toGeminiRequest } from './to-gemini-request.ts';
import type { BatchEmbedContentsResponse, GenerateContentResponse } from './types.ts';

/** Settings of one gemini provider. */
export interface GeminiSettings {
  name: string;
  kind: string;
  /** API origin without version, e.g. `https://generativelanguage.googleapis.com`. */
  origin: string;
  apiKey: string;
  models: string[];
  /** Time to headers and longest gap between stream chunks, ms. */
  timeoutMs: number;
  log: Logger;
}

/** Discovery stops after this many pages (a server repeating tokens must not loop forever). */
const MAX_MODEL_PAGES = 20;
/** Discovery runs at startup: it must not hold the start for the whole chat timeout. */
const DISCOVERY_TIMEOUT_MS = 15_000;

/** Creates the provider. Nothing is pooled here beyond the core's shared undici agent. */
export function createGeminiProvider(s: GeminiSettings): Provider {
  const ep = geminiEndpoints(s.origin);
  const authHeaders = { 'x-goog-api-key': s.apiKey };
  const jsonHeaders = { ...authHeaders, 'content-type': 'application/json' };
  const sseHeaders = { ...jsonHeaders, accept: 'text/event-stream' };

  /** POSTs a JSON body; an error status becomes the mapped GatewayError. */
  async function post(url: string, body: unknown, call: CallContext, stream: boolean): Promise<UpstreamResponse> {
    const res = await callUpstream(url, { headers: stream ? sseHeaders : jsonHeaders, body: JSON.stringify(body), signal: call.signal, timeoutMs: s.timeoutMs, provider: s.name, log: call.log });
    if (res.statusCode >= 400) {
      const text = await readBody(res, s.name, url, s.timeoutMs, call.signal).catch(() => '');
      const ra = res.headers['retry-after'];
      throw httpError(s.name, res.statusCode, text, Array.isArray(ra) ? ra[0] : ra);
    }
    return res;
  }

  async function chat(req: ChatRequest, call: CallContext): Promise<ChatResult> {
    const { body, warnings } = toGeminiRequest(req);
    if (warnings.length > 0 && call.log.isLevelEnabled('debug')) {
      call.log.debug({ req: call.requestId, provider: s.name, warnings }, 'gemini translation warnings');
    }
    const stream = req.stream === true;
    const url = ep.chat(req.model, stream);
    const res = await post(url, body, call, stream);
    const meta: StreamMeta = { id: `chatcmpl-${randomBytes(12).toString('hex')}`, model: req.model, created: Math.floor(Date.now() / 1000) };
    if (!stream) {
      const text = await readBody(res, s.name, url, s.timeoutMs, call.signal);
      return { type: 'json', body: fromGeminiResponse(generateContentResponse(text), meta) };
    }
    const ct = String(res.headers['content-type'] ?? '');
    if (!ct.includes('text/event-stream')) {
      const text = await readBody(res, s.name, url, s.timeoutMs, call.signal).catch(() => '');
      throw malformed(s.name, `${ct || 'no content type'} to a stream request`, text);
    }
    return { type: 'stream', chunks: streamChunks(res, url, meta, call.signal) };
  }

  /** A non-streaming body → GenerateContentResponse, else 502 (or Google's error, mapped). */
  function generateContentResponse(text: string): GenerateContentResponse {
    const parsed = parseUpstreamJson<unknown>(text, s.name);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw malformed(s.name, 'a response that is not a JSON object', text);
    const res = parsed as GenerateContentResponse;
    if (res.error !== undefined && res.candidates === undefined) {
      const code = (res.error as { code?: unknown }).code;
      throw httpError(s.name, typeof code === 'number' && code >= 400 ? code : 502, text, undefined);
    }
    if (res.candidates !== undefined && !Array.isArray(res.candidates)) throw malformed(s.name, 'candidates that are not an array', text);
    return res;
  }

  /** Upstream events → common chunks as they arrive; the end without finishReason → 502. */
  async function* streamChunks(res: UpstreamResponse, url: string, meta: StreamMeta, signal: AbortSignal): AsyncGenerator<ChatCompletionChunk> {
    const mapper = new GeminiStreamMapper(meta);
    try {
      for await (const ev of sseEvents(res.body, s.name, url, s.timeoutMs, signal)) {
        try {
          yield* mapper.push(ev);
        } catch (err) {
          throw streamError(s.name, err, 'upstream_error');
        }
      }
    } finally {
      // a stream we stop reading early (client gone, error) must not stall the pool
      releaseBody(res, false);
    }
    let tail: ChatCompletionChunk[];
    try {
      tail = mapper.end();
    } catch (err) {
      throw streamError(s.name, err, 'upstream_truncated');
    }
    yield* tail;
  }

  async function embeddings(req: EmbeddingsRequest, call: CallContext): Promise<{ body: EmbeddingsResponse }> {
    const inputs = embeddingInputs(req);
    const url = ep.batchEmbed(req.model);
    const res = await post(url, toBatchEmbedRequest(req, req.model), call, false);
    const text = await readBody(res, s.name, url, s.timeoutMs, call.signal);
    const parsed = parseUpstreamJson<BatchEmbedContentsResponse | null>(text, s.name);
    const list = parsed?.embeddings;
    if (!Array.isArray(list) || list.length !== inputs.length || !list.every((e) => Array.isArray(e?.values))) {
      throw malformed(s.name, `an embeddings response without one values array per input (${inputs.length})`, text);
    }
    return { body: fromBatchEmbedResponse(parsed!, req.model, req.encoding_format, inputs) };
  }

  async function listModels(signal?: AbortSignal): Promise<string[]> {
    const ids = new Set<string>();
    let token: string | undefined;
    for (let page = 0; page < MAX_MODEL_PAGES; page++) {
      const url = ep.models(token);
      const timeoutMs = Math.min(s.timeoutMs, DISCOVERY_TIMEOUT_MS);
      const res = await callUpstream(url, { method: 'GET', headers: authHeaders, signal, timeoutMs, provider: s.name, log: s.log });
      const text = await readBody(res, s.name, url, timeoutMs, signal);
      if (res.statusCode >= 400) {
        throw new GatewayError(502, `model discovery failed: GET ${redactUrl(url)} answered HTTP ${res.statusCode}: ${snippet(text)}`, { code: 'discovery_failed', upstreamStatus: res.statusCode, provider: s.name });
      }
      const read = readModelsPage(parseUpstreamJson<ListModelsPage | null>(text, s.name) ?? {});
      if (read === undefined) throw new GatewayError(502, `model discovery failed: GET ${redactUrl(url)} returned no models array`, { code: 'discovery_failed', provider: s.name });
      for (const id of read.ids) ids.add(id);
      if (read.next === undefined || read.next === token) return [...ids];
      token = read.next;
    }
    s.log.warn({ provider: s.name, pages: MAX_MODEL_PAGES }, 'model discovery stopped after the page limit');
    return [...ids];
  }

  return { name: s.name, kind: s.kind, models: s.models, chat, embeddings, listModels };
}
