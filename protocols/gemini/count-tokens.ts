/**
 * `models/{model}:countTokens`: native on the gemini kind, an estimate for kinds that cannot count Gemini tokens.
 * @see Gemini API reference: models.countTokens; Gemini API docs: Understand and count tokens (258 tokens per image)
 */
import { badRequest, isObject } from 'gw/plugin';
import { bodyOf } from 'gw/plugin/format';
import type { CountTokens } from '../../core/pipeline/count.ts';
import { urlModel, withModel } from './request.ts';
import { countTokensRequestSchema } from './schemas.ts';
import type { CountTokensBody, CountTokensResponse } from './types.ts';

type Obj = Record<string, unknown>;

/** Gemini's documented cost of an image up to 384 px a side; larger ones are tiled, so this is a floor. */
export const IMAGE_TOKENS = 258;
/** Per turn, for the role and turn markers every chat template adds. */
export const TURN_TOKENS = 3;

/**
 * Estimates the prompt tokens of a countTokens body (`contents`, or a whole
 * `generateContentRequest`): ⌈UTF-8 bytes / 4⌉ per text and per call's JSON, as
 * lib/common/estimate.ts does, {@link IMAGE_TOKENS} per media part (audio and video length are
 * unknown without decoding), {@link TURN_TOKENS} per turn. Answer: `{totalTokens}`.
 * @throws GatewayError 400 naming the field when neither or both forms are given, or a turn is malformed.
 */
export function estimateCountTokens(body: CountTokensBody): CountTokensResponse {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('request body must be a JSON object');
  const gcr = body.generateContentRequest;
  if (gcr !== undefined && body.contents !== undefined) throw badRequest('contents and generateContentRequest are mutually exclusive', 'contents');
  let total = 0;
  if (gcr !== undefined) {
    if (!isObject(gcr)) throw badRequest('generateContentRequest must be an object', 'generateContentRequest');
    total += contentsTokens(gcr.contents, 'generateContentRequest.contents');
    if (isObject(gcr.systemInstruction)) total += partsTokens(gcr.systemInstruction.parts, 'generateContentRequest.systemInstruction.parts');
    else if (typeof gcr.systemInstruction === 'string') total += textTokens(gcr.systemInstruction);
    if (Array.isArray(gcr.tools)) for (const tool of gcr.tools) total += jsonTokens((tool as Obj | null)?.functionDeclarations);
  } else {
    if (body.contents === undefined) throw badRequest('contents or generateContentRequest is required', 'contents');
    total += contentsTokens(body.contents, 'contents');
  }
  return { totalTokens: total };
}

function contentsTokens(contents: unknown, param: string): number {
  if (!Array.isArray(contents)) throw badRequest(`${param} must be an array of Content objects`, param);
  let n = 0;
  contents.forEach((c, i) => {
    if (!isObject(c)) throw badRequest(`${param}[${i}] must be a Content object`, `${param}[${i}]`);
    n += TURN_TOKENS + partsTokens(c.parts, `${param}[${i}].parts`);
  });
  return n;
}

function partsTokens(parts: unknown, param: string): number {
  if (!Array.isArray(parts)) throw badRequest(`${param} must be an array of Part objects`, param);
  let n = 0;
  for (const p of parts) {
    if (!isObject(p)) continue;
    if (typeof p.text === 'string') n += textTokens(p.text);
    else if (p.inlineData !== undefined || p.fileData !== undefined) n += IMAGE_TOKENS;
    else if (p.functionCall !== undefined) n += jsonTokens(p.functionCall);
    else if (p.functionResponse !== undefined) n += jsonTokens(p.functionResponse);
  }
  return n;
}

function textTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / 4);
}

function jsonTokens(v: unknown): number {
  return v === undefined || v === null ? 0 : textTokens(JSON.stringify(v));
}

/** `models/{model}:countTokens` as a count-tokens declaration: native on the gemini kind, else {@link estimateCountTokens}. */
export const geminiCountTokens: CountTokens = {
  schema: countTokensRequestSchema,
  read(ctx) {
    const model = urlModel(ctx);
    return { model, body: withModel(bodyOf(ctx), model) };
  },
  nativeOp: 'countTokens',
  estimate: (body) => ({ ...estimateCountTokens(body as CountTokensBody) }),
};
