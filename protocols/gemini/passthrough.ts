/**
 * Native Gemini passthrough to a Gemini API origin: the provider method the gemini kind puts
 * at `native['gemini']`. The client's body bytes go upstream unchanged (when gw did not have
 * to change them), to `{origin}/v1beta/models/{model}:{op}` with the provider's own key in
 * `x-goog-api-key`; the client's query string follows (its `key` was removed by auth), with
 * `alt=sse` forced for streams whatever framing the client asked for (the route re-frames
 * the events for a JSON-array client, each event's data unchanged). The answer comes back as
 * bytes or SSE events, never re-encoded.
 * @see https://ai.google.dev/api/generate-content
 * @see https://ai.google.dev/api/tokens
 * @see https://ai.google.dev/api/embeddings
 */
import { badRequest, type NativeCall, type UpstreamClient } from 'gw/plugin';
import { quoted } from 'gw/plugin/format';

/** The Gemini API methods a native call serves (the `op` of {@link NativeCall}). */
export type GeminiOp = 'generateContent' | 'streamGenerateContent' | 'countTokens' | 'embedContent' | 'batchEmbedContents';

const OPS: ReadonlySet<string> = new Set<GeminiOp>(['generateContent', 'streamGenerateContent', 'countTokens', 'embedContent', 'batchEmbedContents']);

/**
 * The native call of a gemini provider at `origin` (without `/v1beta`), reached with `http`
 * (whose `readError` reads Google error bodies) and authenticated with `apiKey`.
 *
 * `body.model` is the canonical model to call (the Gemini routes put the URL's model there,
 * since the core re-targets `model` on a fallback); it is never sent in the body. When
 * `call.rawBody` is absent (an alias, a fallback), the body is re-serialized with its nested
 * model references (`requests[].model`, `generateContentRequest.model`) re-targeted too.
 * @throws GatewayError 400 for an unknown `op` or a missing model; the upstream's errors as the client maps them.
 */
export function geminiPassthrough(http: UpstreamClient, origin: string, apiKey: string): NativeCall {
  const base = `${origin}/v1beta/models/`;
  const jsonHeaders = { 'x-goog-api-key': apiKey, 'content-type': 'application/json' };
  const sseHeaders = { ...jsonHeaders, accept: 'text/event-stream' };
  return async function gemini(body, call, op = 'generateContent') {
    if (!OPS.has(op)) throw badRequest('not a Gemini API method gw serves', null, quoted(op));
    const model = body.model;
    if (typeof model !== 'string' || model === '') throw badRequest('the URL names no model', 'model');
    const stream = op === 'streamGenerateContent';
    const url = `${base}${encodeURIComponent(model)}:${op}${upstreamQuery(call.query, stream)}`;
    const res = await http.send(url, {
      headers: stream ? sseHeaders : jsonHeaders,
      body: call.rawBody ?? upstreamBody(body, model),
      signal: call.signal,
      log: call.log,
    });
    // no terminator event in Gemini streams: the body is read to its end
    if (stream) return { type: 'stream', events: await http.events(res, url, call.signal) };
    const raw = await http.text(res, url, call.signal);
    return { type: 'json', status: res.statusCode, raw, contentType: String(res.headers['content-type'] ?? 'application/json') };
  };
}

/** `?<client query>`, with `alt=sse` for a stream (Google's JSON-array stream is re-framed by the route). */
export function upstreamQuery(query: string, stream: boolean): string {
  if (!stream) return query === '' ? '' : `?${query}`;
  if (query === '' || query === 'alt=sse') return '?alt=sse';
  const q = new URLSearchParams(query);
  q.set('alt', 'sse');
  return `?${q.toString()}`;
}

/**
 * The body to send when the client's bytes cannot be: without `model` (it is in the URL), and
 * with `requests[].model` (batchEmbedContents) and `generateContentRequest.model` (countTokens),
 * when given, naming `models/{model}`.
 */
export function upstreamBody(body: Record<string, unknown>, model: string): Record<string, unknown> {
  const out: Record<string, unknown> = { ...body };
  delete out.model;
  const name = `models/${model}`;
  if (Array.isArray(out.requests)) {
    out.requests = out.requests.map((r: unknown) => (isObj(r) && r.model !== undefined ? { ...r, model: name } : r));
  }
  const gcr = out.generateContentRequest;
  if (isObj(gcr) && gcr.model !== undefined) out.generateContentRequest = { ...gcr, model: name };
  return out;
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
