/**
 * OpenAI embeddings ⇄ Gemini `batchEmbedContents` (one request covers any number of inputs).
 * @see Gemini API reference: models.batchEmbedContents
 */
import { badRequest, type EmbeddingsRequest, type EmbeddingsResponse } from 'gw/plugin';
import type { BatchEmbedContentsRequest, BatchEmbedContentsResponse } from './types.ts';

/** The input texts of an embeddings request; token-id arrays have no Gemini meaning → 400. */
export function embeddingInputs(req: EmbeddingsRequest): string[] {
  const input = req.input;
  if (typeof input === 'string') return [input];
  if (Array.isArray(input) && input.length > 0 && input.every((s) => typeof s === 'string')) return input as string[];
  if (Array.isArray(input) && input.length === 0) throw badRequest('input must not be empty', 'input');
  throw badRequest('input must be a string or an array of strings for Gemini models (token arrays are not supported)', 'input');
}

/**
 * One `EmbedContentRequest` per input, `dimensions` → `outputDimensionality`.
 * `user` has no Gemini equivalent and is ignored.
 * @see Gemini API reference: EmbedContentRequest
 */
export function toBatchEmbedRequest(req: EmbeddingsRequest, model: string): BatchEmbedContentsRequest {
  const dims = req.dimensions;
  if (dims !== undefined && dims !== null && (typeof dims !== 'number' || !Number.isInteger(dims) || dims <= 0)) {
    throw badRequest('dimensions must be a positive integer', 'dimensions');
  }
  return {
    requests: embeddingInputs(req).map((text) => ({
      model: `models/${model}`,
      content: { parts: [{ text }] },
      ...(typeof dims === 'number' ? { outputDimensionality: dims } : {}),
    })),
  };
}

/**
 * Gemini embeddings → the OpenAI list (`base64`: little-endian float32, as OpenAI sends it).
 * Usage is estimated (⌈chars / 4⌉ per input) where Gemini reports none: never zero for real work.
 * @see Gemini API reference: BatchEmbedContentsResponse
 */
export function fromBatchEmbedResponse(
  res: BatchEmbedContentsResponse,
  model: string,
  encodingFormat: 'float' | 'base64' | undefined,
  inputs: readonly string[],
): EmbeddingsResponse {
  const data = (res.embeddings ?? []).map((e, index) => ({
    object: 'embedding' as const,
    index,
    embedding: encodingFormat === 'base64' ? float32Base64(e.values) : e.values,
  }));
  const reported = res.usageMetadata?.promptTokenCount;
  const promptTokens = typeof reported === 'number' ? reported : estimateInputTokens(inputs);
  return { object: 'list', data, model, usage: { prompt_tokens: promptTokens, total_tokens: promptTokens } };
}

/** ⌈chars / 4⌉ per input, at least 1 for a non-empty input. */
function estimateInputTokens(inputs: readonly string[]): number {
  return inputs.reduce((sum, s) => sum + Math.ceil(s.length / 4), 0);
}

function float32Base64(values: number[]): string {
  const buf = Buffer.alloc(values.length * 4);
  for (let i = 0; i < values.length; i++) buf.writeFloatLE(values[i]!, i * 4);
  return buf.toString('base64');
}
