/**
 * Gemini API endpoints as data: the origin and one URL per operation.
 * @see Gemini API reference: Generating content, Embeddings, models.list
 */

export const GEMINI_ORIGIN = 'https://generativelanguage.googleapis.com';

/** Server cap on `models.list` pages. */
const MODELS_PAGE_SIZE = 1000;

/**
 * The API origin from `base_url`: trailing slashes dropped, and a trailing `/v1beta` too,
 * since users paste Google's documented URLs, which end there; gw adds it itself.
 */
export function geminiOrigin(baseUrl: string | undefined): string {
  if (baseUrl === undefined) return GEMINI_ORIGIN;
  return baseUrl.replace(/\/+$/, '').replace(/\/v1beta$/, '');
}

/** URL builders for one origin. Model ids are path-encoded: they come from clients. */
export interface GeminiEndpoints {
  /** `POST …/v1beta/models/{model}:generateContent`, or `:streamGenerateContent?alt=sse`. */
  chat(model: string, stream: boolean): string;
  /** `POST …/v1beta/models/{model}:batchEmbedContents`. */
  batchEmbed(model: string): string;
  /** `GET …/v1beta/models?pageSize=…[&pageToken=…]`. */
  models(pageToken: string | undefined): string;
}

/** Builds the endpoints of `origin` (no trailing slash). */
export function geminiEndpoints(origin: string): GeminiEndpoints {
  const base = `${origin}/v1beta/models`;
  return {
    chat: (model, stream) => `${base}/${encodeURIComponent(model)}${stream ? ':streamGenerateContent?alt=sse' : ':generateContent'}`,
    batchEmbed: (model) => `${base}/${encodeURIComponent(model)}:batchEmbedContents`,
    models: (pageToken) => `${base}?pageSize=${MODELS_PAGE_SIZE}${pageToken ? `&pageToken=${encodeURIComponent(pageToken)}` : ''}`,
  };
}
