/**
 * gw's models in Gemini's `models.list` / `models.get` shape.
 * @see Gemini API reference: Model, models.list
 */
import { badRequest } from 'gw/plugin';
import type { GeminiModel, GenerationMethod, ListModelsResponse } from './types.ts';

/** Gemini's default and maximum `pageSize`. */
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 1000;

const CHAT_METHODS: readonly GenerationMethod[] = ['generateContent', 'streamGenerateContent', 'countTokens'];
const EMBED_METHODS: readonly GenerationMethod[] = ['embedContent', 'batchEmbedContents', 'countTokens'];

/**
 * One model. gw does not know what a model can do: an id containing `embed` gets the embedding
 * methods, any other the generation ones (model pickers filter on them). No token limits.
 */
export function toGeminiModel(id: string): GeminiModel {
  return {
    name: `models/${id}`,
    baseModelId: id,
    version: 'gw',
    displayName: id,
    description: `${id}, served by gw`,
    supportedGenerationMethods: [...(/embed/i.test(id) ? EMBED_METHODS : CHAT_METHODS)],
  };
}

/**
 * One page of `models.list` over `ids`; `pageToken` is the previous page's opaque offset.
 * @throws GatewayError 400 naming `pageSize` or `pageToken` when malformed.
 */
export function listGeminiModels(ids: readonly string[], query: { pageSize?: string | undefined; pageToken?: string | undefined } = {}): ListModelsResponse {
  let size = DEFAULT_PAGE_SIZE;
  if (query.pageSize !== undefined && query.pageSize !== '') {
    if (!/^\d+$/.test(query.pageSize)) throw badRequest('pageSize must be a non-negative integer', 'pageSize');
    size = Math.min(Number(query.pageSize), MAX_PAGE_SIZE) || DEFAULT_PAGE_SIZE;
  }
  let start = 0;
  if (query.pageToken !== undefined && query.pageToken !== '') {
    const decoded = Buffer.from(query.pageToken, 'base64url').toString('utf8');
    if (!/^\d+$/.test(decoded) || Number(decoded) > ids.length) throw badRequest('pageToken is not one gw issued', 'pageToken');
    start = Number(decoded);
  }
  const page: ListModelsResponse = { models: ids.slice(start, start + size).map(toGeminiModel) };
  if (start + size < ids.length) page.nextPageToken = Buffer.from(String(start + size), 'utf8').toString('base64url');
  return page;
}

/**
 * `{model}:{method}` split at its last colon (model ids may hold colons: `ft:gpt-4o:org:id`).
 * @returns undefined when there is no method part.
 */
export function splitModelMethod(segment: string): { model: string; method: string } | undefined {
  const decoded = safeDecode(segment).replace(/^models\//, '');
  const colon = decoded.lastIndexOf(':');
  if (colon <= 0 || colon === decoded.length - 1) return undefined;
  return { model: decoded.slice(0, colon), method: decoded.slice(colon + 1) };
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
