/**
 * zod schemas of the Gemini request bodies: they validate on the route and feed
 * /openapi.json. Open objects: nothing is stripped (the gemini kind gets the body unchanged;
 * translators read what they map and warn about the rest). They check the envelope only;
 * part-level problems are named by the translators, which know the field path.
 *
 * @see Gemini API reference: Generating content › Request body, Counting tokens › Request body
 * @see Gemini API reference: Embeddings › Request body
 */
import { capped, MAX_TOOLS, MAX_TURNS } from 'gw/plugin/format';
import { cappedTotal, lengthOr1, MAX_EMBEDDING_INPUTS } from '../../lib/common/limits.ts';
import { z } from 'zod';

const part = z.looseObject({}).meta({ description: 'A Part: text, inlineData, fileData, functionCall, functionResponse, …' });

export const geminiContentSchema = z
  .looseObject({
    role: z.string().optional().meta({ description: '"user" or "model"' }),
    parts: z.array(part),
  })
  .meta({ id: 'GeminiContent' });

const functionDeclaration = z.looseObject({
  name: z.string().min(1),
  description: z.string().optional(),
  parameters: z.looseObject({}).optional().meta({ description: "Google's OpenAPI-subset Schema" }),
  parametersJsonSchema: z.looseObject({}).optional().meta({ description: 'JSON Schema' }),
});

export const generateContentRequestSchema = z
  .looseObject({
    contents: capped(geminiContentSchema, MAX_TURNS, 'contents'),
    systemInstruction: z.union([geminiContentSchema, z.string()]).optional(),
    tools: cappedTotal(
      z.looseObject({ functionDeclarations: capped(functionDeclaration, MAX_TOOLS, 'function declarations').optional() }),
      MAX_TOOLS,
      'tools',
      'function declarations',
      'counted over every tool; a tool without functionDeclarations counts one',
      (tool) => lengthOr1((tool as { functionDeclarations?: unknown } | null)?.functionDeclarations),
    ).optional(),
    toolConfig: z
      .looseObject({
        functionCallingConfig: z
          .looseObject({
            mode: z.string().optional().meta({ description: 'AUTO, ANY, NONE or VALIDATED' }),
            allowedFunctionNames: z.array(z.string()).optional(),
          })
          .optional(),
      })
      .optional(),
    generationConfig: z
      .looseObject({
        maxOutputTokens: z.number().int().positive().optional(),
        temperature: z.number().min(0).max(2).optional(),
        topP: z.number().min(0).max(1).optional(),
        topK: z.number().optional(),
        candidateCount: z.number().int().positive().optional(),
        stopSequences: z.array(z.string()).optional(),
        responseMimeType: z.string().optional(),
        responseSchema: z.looseObject({}).optional(),
        responseJsonSchema: z.unknown().optional(),
        seed: z.number().int().optional(),
        presencePenalty: z.number().optional(),
        frequencyPenalty: z.number().optional(),
        thinkingConfig: z.looseObject({ includeThoughts: z.boolean().optional() }).optional(),
      })
      .optional(),
    safetySettings: z.array(z.looseObject({})).optional(),
    cachedContent: z.string().optional(),
  })
  .meta({ id: 'GeminiGenerateContentRequest', description: 'Gemini GenerateContentRequest; the model is in the URL' });

export const countTokensRequestSchema = z
  .looseObject({
    contents: capped(geminiContentSchema, MAX_TURNS, 'contents').optional(),
    generateContentRequest: z.looseObject({ contents: capped(geminiContentSchema, MAX_TURNS, 'contents') }).optional(),
  })
  .meta({ id: 'GeminiCountTokensRequest', description: 'contents, or a whole generateContentRequest' });

export const embedContentRequestSchema = z
  .looseObject({
    model: z.string().optional().meta({ description: 'models/{model}; must match the URL' }),
    content: geminiContentSchema,
    taskType: z.string().optional(),
    title: z.string().optional(),
    outputDimensionality: z.number().int().positive().optional(),
  })
  .meta({ id: 'GeminiEmbedContentRequest' });

export const batchEmbedContentsRequestSchema = z
  .looseObject({
    requests: capped(embedContentRequestSchema, MAX_EMBEDDING_INPUTS, 'requests').min(1),
  })
  .meta({ id: 'GeminiBatchEmbedContentsRequest' });

/** Google's error body (`google.rpc.Status`), for /openapi.json. */
export const googleErrorSchema = z
  .object({
    error: z.object({
      code: z.number().int().meta({ description: 'The HTTP status' }),
      message: z.string(),
      status: z.string().meta({ description: 'google.rpc.Code name, e.g. INVALID_ARGUMENT' }),
      details: z.array(z.looseObject({})).optional().meta({ description: 'ErrorInfo (reason: gw error code, metadata.param), RetryInfo' }),
    }),
  })
  .meta({ id: 'GoogleError' });
