/**
 * POST models/{model}:generateContent and :streamGenerateContent as generate routes (the
 * kernel's loop, core/pipeline/generate.ts). The gemini kind (`native.gemini`) gets the
 * request and answer forwarded unchanged: the body, each stream event's data
 * (`thoughtSignature`, `usageMetadata` and all), usage read from `usageMetadata`. Every other
 * kind is reached by translating Gemini ⇄ common format around `chat`.
 *
 * Streams: `?alt=sse` → SSE (`data: <json>\r\n\r\n` per response, no terminator); without it
 * the JSON-array stream (`[` first, `,\r\n` between, `]` at the end). A failure after the
 * first byte is Google's error object as the next event (SSE) or as the array's last element.
 * @see https://ai.google.dev/api/generate-content
 */
import { UPSTREAM_MALFORMED } from '../../../core/error-codes.ts';
import { malformedFirst } from '../../../core/format/sse-data.ts';
import type { Generate } from '../../../core/pipeline/generate.ts';
import type { SseEvent } from '../../../core/provider.ts';
import { geminiAffinity } from './affinity.ts';
import { ChunksToGeminiStream } from './chunks-to-stream.ts';
import { chatCompletionToGemini } from './from-chat-completion.ts';
import { geminiStreamError } from './google-error.ts';
import { fromUsageMetadata, hasTokenCounts } from './map-usage.ts';
import { bodyOf, positive, urlModel, withModel } from './request.ts';
import { generateContentRequestSchema } from './schemas.ts';
import { framingHeaders, framingOf } from './stream-framing.ts';
import { ERROR_PAYLOAD, GeminiStreamReader } from './stream-reader.ts';
import { geminiToChatRequest } from './to-chat-request.ts';
import type { GenerateContentBody, GenerateContentResponse, UsageMetadata } from './types.ts';

/** An error payload or malformed data as a stream's first event is a failure before the stream (retried, or a status). */
function firstError(ev: SseEvent, provider: string) {
  if (!ERROR_PAYLOAD.test(ev.data)) return malformedFirst(ev.data, provider);
  let e: unknown;
  try {
    e = (JSON.parse(ev.data) as { error?: unknown }).error;
  } catch {
    e = { message: ev.data.slice(0, 200) };
  }
  return geminiStreamError(e, provider, true);
}

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
    framing: framingHeaders,
    affinity: geminiAffinity,
    native: {
      op: () => op,
      firstError,
      json(raw, { rc }) {
        let parsed: { usageMetadata?: UsageMetadata } | null;
        try {
          parsed = JSON.parse(raw);
        } catch {
          throw UPSTREAM_MALFORMED({ provider: rc.provider!, what: `a malformed JSON body: ${raw.slice(0, 200)}` }, { provider: rc.provider });
        }
        const usage = parsed?.usageMetadata;
        rc.usage = hasTokenCounts(usage) ? fromUsageMetadata(usage) : undefined;
      },
      stream: ({ rc, ctx }, progress) => new GeminiStreamReader(rc, progress, framingOf(ctx)),
    },
    translated: {
      toChat(body, target) {
        const { req, warnings, includeThoughts } = geminiToChatRequest(body as GenerateContentBody, { model: target.model, stream });
        return { req, warnings, extra: { includeThoughts } };
      },
      json: (completion, _raw, { extra }) => JSON.stringify(chatCompletionToGemini(completion, extra)),
      stream({ ctx, extra }) {
        const f = framingOf(ctx);
        return {
          translator: new ChunksToGeminiStream(extra),
          encode: (res) => f.frame(JSON.stringify(res)),
          terminator: () => f.end(),
          errorFrame: f.error,
        };
      },
    },
  };
}
