/**
 * The native Gemini call's query (the client's, `alt=sse` forced for streams whatever the
 * client's framing) and body (`model` moved to the URL, nested model references re-targeted).
 * @see Gemini API reference: Generating content
 */

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
    out.requests = out.requests.map((r: unknown) => (isObject(r) && r.model !== undefined ? { ...r, model: name } : r));
  }
  const gcr = out.generateContentRequest;
  if (isObject(gcr) && gcr.model !== undefined) out.generateContentRequest = { ...gcr, model: name };
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
