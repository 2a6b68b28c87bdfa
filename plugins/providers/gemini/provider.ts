/**
 * The HTTP side of the `gemini` kind: the Provider contract on top of the Gemini kit's pure
 * translation functions (`gw/plugin/gemini`). Auth is `x-goog-api-key`; streams use `alt=sse`
 * (each event a whole GenerateContentResponse, CRLF framing, no terminator) and are piped
 * chunk by chunk. Gemini clients calling gw get the native passthrough (`native.gemini`, the
 * kit's geminiPassthrough); every other client format is translated around `chat`.
 *
 * @see https://ai.google.dev/api/generate-content
 * @see https://ai.google.dev/api/embeddings#method:-models.batchembedcontents
 * @see https://ai.google.dev/api/models#method:-models.list
 */
import {
  type CallContext,
  type ChatCompletionChunk,
  type ChatRequest,
  type ChatResult,
  type EmbeddingsRequest,
  type EmbeddingsResponse,
  errors,
  type Provider,
  type UpstreamClient,
  type UpstreamResponse,
} from 'gw/plugin';
import { snippet } from 'gw/plugin/format';
import { randomBytes } from 'node:crypto';
import {
  type BatchEmbedContentsResponse,
  embeddingInputs,
  fromBatchEmbedResponse,
  fromGeminiResponse,
  geminiEndpoints,
  geminiPassthrough,
  GeminiToCommonStep,
  type GenerateContentResponse,
  type ListModelsPage,
  readModelsPage,
  type StreamMeta,
  toBatchEmbedRequest,
  toGeminiRequest,
} from 'gw/plugin/gemini';

/** Settings of one gemini provider. */
export interface GeminiSettings {
  name: string;
  kind: string;
  /** API origin without version, e.g. `https://generativelanguage.googleapis.com`. */
  origin: string;
  apiKey: string;
  models: string[];
  /** The provider's upstream client (its `readError` reads Google error bodies). */
  http: UpstreamClient;
}

/** Discovery stops after this many pages (a server repeating tokens must not loop forever). */
const MAX_MODEL_PAGES = 20;

/** Creates the provider. Nothing is pooled here beyond the core's shared undici agent. */
export function createGeminiProvider(s: GeminiSettings): Provider {
  const ep = geminiEndpoints(s.origin);
  const authHeaders = { 'x-goog-api-key': s.apiKey };
  const jsonHeaders = { ...authHeaders, 'content-type': 'application/json' };
  const sseHeaders = { ...jsonHeaders, accept: 'text/event-stream' };

  const http = s.http;
  const malformed = (what: string, text?: string) =>
    errors.UPSTREAM_MALFORMED({ provider: s.name, what: `${what}${text === undefined ? '' : `: ${snippet(text)}`}` }, { provider: s.name });

  /** POSTs a JSON body; an error status becomes the mapped GatewayError. */
  function post(url: string, body: unknown, call: CallContext, stream: boolean): Promise<UpstreamResponse> {
    return http.send(url, { headers: stream ? sseHeaders : jsonHeaders, body, signal: call.signal, log: call.log, large: call.large });
  }

  async function chat(req: ChatRequest, call: CallContext): Promise<ChatResult> {
    const { body, warnings } = toGeminiRequest(req);
    if (warnings.length > 0 && call.log.isLevelEnabled('debug')) {
      call.log.debug({ req: call.requestId, provider: s.name, warnings }, 'gemini translation warnings');
    }
    const stream = req.stream === true;
    const url = ep.chat(req.model, stream);
    const res = await post(url, body, call, stream);
    const meta: StreamMeta = { id: `chatcmpl-${randomBytes(12).toString('hex')}`, model: req.model, created: Math.floor(Date.now() / 1000), provider: s.name };
    if (!stream) {
      const text = await http.text(res, url, call.signal);
      return { type: 'json', body: fromGeminiResponse(generateContentResponse(text), meta) };
    }
    return { type: 'stream', chunks: streamChunks(res, url, meta, call.signal) };
  }

  /** A non-streaming body → GenerateContentResponse, else 502 (or Google's error, mapped). */
  function generateContentResponse(text: string): GenerateContentResponse {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw malformed('a malformed JSON body', text);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw malformed('a response that is not a JSON object', text);
    const res = parsed as GenerateContentResponse;
    if (res.error !== undefined && res.candidates === undefined) {
      const code = (res.error as { code?: unknown }).code;
      throw http.errorFor(typeof code === 'number' && code >= 400 ? code : 500, text);
    }
    if (res.candidates !== undefined && !Array.isArray(res.candidates)) throw malformed('candidates that are not an array', text);
    return res;
  }

  /** Upstream events → common chunks as they arrive; the end without finishReason → 502. */
  async function* streamChunks(res: UpstreamResponse, url: string, meta: StreamMeta, signal: AbortSignal): AsyncGenerator<ChatCompletionChunk> {
    const mapper = new GeminiToCommonStep(meta);
    // no terminator event: the body is read to its end, then released as complete
    for await (const ev of await http.events(res, url, signal)) yield* mapper.push(ev);
    yield* mapper.end();
  }

  async function embeddings(req: EmbeddingsRequest, call: CallContext): Promise<{ body: EmbeddingsResponse }> {
    const inputs = embeddingInputs(req);
    const url = ep.batchEmbed(req.model);
    const res = await post(url, toBatchEmbedRequest(req, req.model), call, false);
    const parsed = await http.json<BatchEmbedContentsResponse | null>(res, url, call.signal);
    const list = parsed?.embeddings;
    if (!Array.isArray(list) || list.length !== inputs.length || !list.every((e) => Array.isArray(e?.values))) {
      throw malformed(`an embeddings response without one values array per input (${inputs.length})`, JSON.stringify(parsed));
    }
    return { body: fromBatchEmbedResponse(parsed!, req.model, req.encoding_format, inputs) };
  }

  function listModels(signal?: AbortSignal): Promise<string[]> {
    return http
      .pages(
        ep.models(undefined),
        authHeaders,
        (body) => {
          const read = readModelsPage((body as ListModelsPage | null) ?? {});
          return read && { items: read.ids, next: read.next === undefined ? undefined : ep.models(read.next) };
        },
        { signal, maxPages: MAX_MODEL_PAGES },
      )
      .then((ids) => [...new Set(ids)]);
  }

  return { name: s.name, kind: s.kind, models: s.models, chat, embeddings, listModels, native: { gemini: geminiPassthrough(http, s.origin, s.apiKey) } };
}
