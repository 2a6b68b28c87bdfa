/**
 * Calling the Gemini API: a common request translated to generateContent and its answer and
 * events (`alt=sse`, each a whole GenerateContentResponse, no terminator) back, embeddings as
 * batchEmbedContents, the native call of Gemini clients, model discovery (deduplicated pages).
 * `origin` is the API origin without `/v1beta`.
 * @see Gemini API reference: Generating content, models.batchEmbedContents, models.list
 */
import { randomBytes } from 'node:crypto';
import { badRequest, errors } from 'gw/plugin';
import { quoted } from 'gw/plugin/format';
import { parseUpstreamJson, snippet } from '../../lib/http/upstream.ts';
import type { VendorEnv, VendorSide } from '../../lib/vendor/side.ts';
import { embeddingInputs, fromBatchEmbedResponse, toBatchEmbedRequest } from './batch-embed.ts';
import { geminiEndpoints } from './endpoints.ts';
import { fromGeminiResponse } from './from-gemini-response.ts';
import { readGeminiError } from './google-error.ts';
import { type ListModelsPage, readModelsPage } from './list-models.ts';
import { upstreamBody, upstreamQuery } from './passthrough.ts';
import { GeminiToCommonStep, type StreamMeta } from './to-common-step.ts';
import { toGeminiRequest } from './to-gemini-request.ts';
import type { BatchEmbedContentsResponse, GenerateContentResponse } from './types.ts';

/** Discovery stops after this many pages (a server repeating tokens must not loop forever). */
const MAX_MODEL_PAGES = 20;

const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'content-type': 'application/json' });
const SSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'content-type': 'application/json', accept: 'text/event-stream' });

/** The Gemini API methods a native call serves (its `op`). */
const OPS: ReadonlySet<string> = new Set(['generateContent', 'streamGenerateContent', 'countTokens', 'embedContent', 'batchEmbedContents']);

/** A completion's id, model and time: Gemini's answers have neither id nor creation time. */
function metaOf(env: VendorEnv): StreamMeta {
  return { id: `chatcmpl-${randomBytes(12).toString('hex')}`, model: env.model, created: Math.floor(Date.now() / 1000), provider: env.provider };
}

const malformed = (env: VendorEnv, what: string, text: string) =>
  errors.UPSTREAM_MALFORMED({ provider: env.provider, what: `${what}: ${snippet(text)}` }, { provider: env.provider });

/** A non-streaming body → GenerateContentResponse, else 502 (or Google's error, mapped). */
function generateContentResponse(text: string, env: VendorEnv): GenerateContentResponse {
  const parsed = parseUpstreamJson<unknown>(text, env.provider);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw malformed(env, 'a response that is not a JSON object', text);
  const res = parsed as GenerateContentResponse;
  if (res.error !== undefined && res.candidates === undefined) {
    const code = (res.error as { code?: unknown }).code;
    throw env.errorFor(typeof code === 'number' && code >= 400 ? code : 500, text);
  }
  if (res.candidates !== undefined && !Array.isArray(res.candidates)) throw malformed(env, 'candidates that are not an array', text);
  return res;
}

/** The Gemini API's vendor side. */
export const geminiVendor = {
  readError: readGeminiError,
  endpoints(origin) {
    const ep = geminiEndpoints(origin);
    return { chat: ep.chat, embeddings: ep.batchEmbed, models: ep.models(undefined) };
  },
  chat: {
    request: (req) => toGeminiRequest(req),
    answer: (text, env) => ({ body: fromGeminiResponse(generateContentResponse(text, env), metaOf(env)) }),
    step: (env) => new GeminiToCommonStep(metaOf(env)),
  },
  native(op = 'generateContent', body, call, origin) {
    if (!OPS.has(op)) throw badRequest('not a Gemini API method gw serves', null, quoted(op));
    const model = body.model;
    if (typeof model !== 'string' || model === '') throw badRequest('the URL names no model', 'model');
    const stream = op === 'streamGenerateContent';
    return {
      url: `${origin}/v1beta/models/${encodeURIComponent(model)}:${op}${upstreamQuery(call.query, stream)}`,
      stream,
      // `model` is in the URL, never in the body: the client's bytes when they can go, else re-serialized without it
      body: call.rawBody ?? upstreamBody(body, model),
      headers: stream ? SSE_HEADERS : JSON_HEADERS,
    };
  },
  embeddings: {
    request: (req) => toBatchEmbedRequest(req, req.model),
    answer(text, req, env) {
      const inputs = embeddingInputs(req);
      const parsed = parseUpstreamJson<BatchEmbedContentsResponse | null>(text, env.provider);
      const list = parsed?.embeddings;
      if (!Array.isArray(list) || list.length !== inputs.length || !list.every((e) => Array.isArray(e?.values)))
        throw malformed(env, `an embeddings response without one values array per input (${inputs.length})`, text);
      return { body: fromBatchEmbedResponse(parsed!, req.model, req.encoding_format, inputs) };
    },
  },
  models: {
    page(body, origin) {
      const read = readModelsPage((body as ListModelsPage | null) ?? {});
      return read && { items: read.ids, next: read.next === undefined ? undefined : geminiEndpoints(origin).models(read.next) };
    },
    maxPages: MAX_MODEL_PAGES,
  },
} satisfies VendorSide;
