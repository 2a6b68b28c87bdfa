/**
 * `embedContent` / `batchEmbedContents` ⇄ common-format embeddings, for kinds that do not
 * speak Gemini.
 * @see Gemini API reference: models.embedContent, models.batchEmbedContents; OpenAI API reference: Create embeddings
 */
import { badRequest, type EmbeddingsRequest, type EmbeddingsResponse, isObject } from 'gw/plugin';
import { Warnings } from 'gw/plugin/format';
import type { BatchEmbedContentsBody, BatchEmbedContentsResponse, ContentEmbedding, EmbedContentBody, EmbedContentResponse } from './types.ts';

type Obj = Record<string, unknown>;

export interface EmbedToCommonResult {
  req: EmbeddingsRequest;
  warnings: string[];
}

/**
 * `embedContent` → one input, text parts joined by a newline (Gemini embeds a Content as one
 * text); floats are asked for, since Gemini answers with floats.
 * @throws GatewayError 400 naming the field for a missing or non-text content.
 */
export function embedContentToEmbeddings(body: EmbedContentBody, model: string): EmbedToCommonResult {
  if (!isObject(body)) throw badRequest('request body must be a JSON object');
  const w = new Warnings();
  const item = embedItem(body, '', model, w);
  const req: EmbeddingsRequest = { model, input: item.text, encoding_format: 'float' };
  if (item.dimensions !== undefined) req.dimensions = item.dimensions;
  return { req, warnings: w.list() };
}

/**
 * `batchEmbedContents` → one request with an input per item; every item must name this URL's
 * model and ask the same `outputDimensionality`, since one common-format request has one.
 * @throws GatewayError 400 naming the field (`requests[i]…`).
 */
export function batchEmbedContentsToEmbeddings(body: BatchEmbedContentsBody, model: string): EmbedToCommonResult {
  if (!isObject(body)) throw badRequest('request body must be a JSON object');
  if (!Array.isArray(body.requests) || body.requests.length === 0) throw badRequest('requests must be a non-empty array', 'requests');
  const w = new Warnings();
  const items = body.requests.map((r, i) => {
    if (!isObject(r)) throw badRequest(`requests[${i}] must be an object`, `requests[${i}]`);
    return embedItem(r, `requests[${i}].`, model, w);
  });
  const dims = items[0]!.dimensions;
  items.forEach((it, i) => {
    if (it.dimensions !== dims) throw badRequest(`requests[${i}].outputDimensionality must equal that of requests[0]`, `requests[${i}].outputDimensionality`);
  });
  const req: EmbeddingsRequest = { model, input: items.map((it) => it.text), encoding_format: 'float' };
  if (dims !== undefined) req.dimensions = dims;
  return { req, warnings: w.list() };
}

/** The first (and only) vector → `{embedding: {values}}`. */
export function embeddingsToEmbedContent(res: EmbeddingsResponse): EmbedContentResponse {
  const first = res.data?.[0];
  return { embedding: { values: first === undefined ? [] : vector(first.embedding) } };
}

/** The vectors in input order (`index`) → `{embeddings: [{values}]}`. */
export function embeddingsToBatchEmbedContents(res: EmbeddingsResponse): BatchEmbedContentsResponse {
  return { embeddings: inInputOrder(res.data ?? []).map((d): ContentEmbedding => ({ values: vector(d.embedding) })) };
}

/**
 * `data` ordered by `index`: each entry put at its index in one pass when the indexes are
 * exactly 0…n-1 (what upstreams send, in any order); sorted otherwise.
 */
function inInputOrder(data: EmbeddingsResponse['data']): EmbeddingsResponse['data'] {
  const out = new Array<EmbeddingsResponse['data'][number]>(data.length);
  for (const d of data) {
    const i = d.index;
    if (!Number.isInteger(i) || i < 0 || i >= data.length || out[i] !== undefined) return [...data].sort((a, b) => a.index - b.index);
    out[i] = d;
  }
  return out;
}

function embedItem(r: Obj, prefix: string, model: string, w: Warnings): { text: string; dimensions: number | undefined } {
  if (r.model !== undefined) {
    const named = typeof r.model === 'string' ? r.model.replace(/^models\//, '') : undefined;
    if (named !== model) throw badRequest(`${prefix}model must be "models/${model}", the model of the URL`, `${prefix}model`);
  }
  const content = r.content;
  if (!isObject(content) || !Array.isArray(content.parts)) throw badRequest(`${prefix}content must be a Content with parts`, `${prefix}content`);
  const texts = content.parts.map((p, j) => {
    const text = isObject(p) ? p.text : undefined;
    if (typeof text !== 'string')
      throw badRequest(`${prefix}content.parts[${j}]: only text parts can be embedded by this model`, `${prefix}content.parts[${j}]`);
    return text;
  });
  if (texts.length === 0) throw badRequest(`${prefix}content.parts must not be empty`, `${prefix}content.parts`);
  for (const key of ['taskType', 'title']) {
    if (r[key] !== undefined) w.add(`${key} dropped: no common-format equivalent`, `${prefix}${key}`);
  }
  const dims = r.outputDimensionality;
  if (dims !== undefined && dims !== null && (typeof dims !== 'number' || !Number.isInteger(dims) || dims <= 0)) {
    throw badRequest(`${prefix}outputDimensionality must be a positive integer`, `${prefix}outputDimensionality`);
  }
  return { text: texts.join('\n'), dimensions: typeof dims === 'number' ? dims : undefined };
}

/** Floats as sent, or base64 little-endian float32 (an upstream that ignored `encoding_format`) decoded. */
function vector(embedding: number[] | string): number[] {
  if (Array.isArray(embedding)) return embedding;
  const buf = Buffer.from(embedding, 'base64');
  const out = new Array<number>(buf.length >> 2);
  for (let i = 0; i < out.length; i++) out[i] = buf.readFloatLE(i * 4);
  return out;
}
