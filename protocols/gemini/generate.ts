/**
 * POST models/{model}:generateContent and :streamGenerateContent as generate declarations: the
 * gemini kind gets request and answer forwarded unchanged, every other kind is reached by
 * translating Gemini ⇄ common format. Stream framings: stream-framing.ts.
 * @see Gemini API reference: Generating content
 */
import { bodyOf, type Generate } from 'gw/plugin/format';
import { parseUpstreamJson } from '../../lib/http/upstream.ts';
import { geminiAffinity } from './affinity.ts';
import { chatCompletionToGemini } from './from-chat-completion.ts';
import { CommonToGeminiStep } from './from-common-step.ts';
import { filteredResponse } from './map-finish-reason.ts';
import { fromUsageMetadata, hasTokenCounts } from './map-usage.ts';
import { GeminiNativeStep, geminiFirstError } from './native-step.ts';
import { positive, urlModel, withModel } from './request.ts';
import { generateContentRequestSchema } from './schemas.ts';
import { framingHeaders, framingOf } from './stream-framing.ts';
import { geminiToChatRequest } from './to-chat-request.ts';
import type { GenerateContentBody, GenerateContentResponse, UsageMetadata } from './types.ts';

/** What a translated answer needs of the request: whether the client asked for thought parts. */
interface Thoughts {
  includeThoughts: boolean;
}

/** The generate route of `:generateContent` (`stream` false) or `:streamGenerateContent` (true). */
export function geminiGenerate(stream: boolean): Generate<undefined, Thoughts, GenerateContentResponse> {
  const op = stream ? 'streamGenerateContent' : 'generateContent';
  return {
    label: 'Gemini',
    schema: generateContentRequestSchema,
    read(ctx) {
      const model = urlModel(ctx);
      const body = bodyOf(ctx);
      const gc = body.generationConfig as { maxOutputTokens?: unknown; candidateCount?: unknown } | null | undefined;
      return {
        body: withModel(body, model),
        facts: { route: 'gemini', model, stream, maxOutputTokens: positive(gc?.maxOutputTokens), choices: positive(gc?.candidateCount) },
      };
    },
    framing: (ctx) => framingHeaders(ctx.query.alt),
    affinity: geminiAffinity,
    capOutput: (body, cap) => ({ ...body, generationConfig: { ...(body.generationConfig as object), maxOutputTokens: cap } }),
    native: {
      op: () => op,
      firstError: geminiFirstError,
      json(raw, { rc }) {
        const parsed = parseUpstreamJson<{ usageMetadata?: UsageMetadata } | null>(raw, rc.provider!);
        const usage = parsed?.usageMetadata;
        rc.usage = hasTokenCounts(usage) ? fromUsageMetadata(usage) : undefined;
        return parsed;
      },
      stream: ({ rc, ctx }, progress) => new GeminiNativeStep(rc, progress, framingOf(ctx.query.alt)),
    },
    translated: {
      toCommon(body, target) {
        const { req, warnings, includeThoughts } = geminiToChatRequest(body as GenerateContentBody, { model: target.model, stream });
        return { req, warnings, extra: { includeThoughts } };
      },
      fromCommon: (completion, _raw, { extra }) => JSON.stringify(chatCompletionToGemini(completion, extra)),
      stream({ ctx, rc, extra }) {
        const f = framingOf(ctx.query.alt);
        return {
          step: new CommonToGeminiStep(extra),
          encode: (res) => f.frame(JSON.stringify(res)),
          terminator: () => f.end(),
          errorFrame: f.error,
          filtered: () => [JSON.parse(filteredResponse(rc.servedModel, rc.choices)) as GenerateContentResponse],
        };
      },
    },
  };
}
