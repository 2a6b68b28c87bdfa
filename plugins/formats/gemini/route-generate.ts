/**
 * POST models/{model}:generateContent and :streamGenerateContent. The gemini kind
 * (`native.gemini`) gets the request and answer forwarded unchanged: the body, each stream
 * event's data (`thoughtSignature`, `usageMetadata` and all), usage read from `usageMetadata`.
 * Every other kind is reached by translating Gemini ⇄ common format around `chat`.
 *
 * Streams: `?alt=sse` → SSE (`data: <json>\r\n\r\n` per response, no terminator); without it
 * the JSON-array stream (`[` first, `,\r\n` between, `]` at the end). A failure after the
 * first byte is Google's error object as the next event (SSE) or as the array's last element.
 * @see https://ai.google.dev/api/generate-content
 */
import type { Context } from 'koa';
import type { RequestContext } from '../../../core/context.ts';
import { UPSTREAM_MALFORMED, UPSTREAM_TRUNCATED } from '../../../core/error-codes.ts';
import type { Usage } from '../../../core/format/chat.ts';
import { StreamProgress } from '../../../core/format/estimate.ts';
import { isBlank, malformedEvent, malformedFirst, objectFramed, parseEventObject } from '../../../core/format/sse-data.ts';
import type { GatewayError } from '../../../core/errors.ts';
import type { Chunk, Hooks } from '../../../core/hooks.ts';
import { dataField } from '../../../core/http/sse-write.ts';
import type { Pipeline } from '../../../core/pipeline/pipeline.ts';
import { translatedFrames } from '../../../core/pipeline/translated-frames.ts';
import { callChat, type ChatOutcome, type NativeOutcome, primeNative } from '../../../core/pipeline/upstream-calls.ts';
import type { SseEvent } from '../../../core/provider.ts';
import { NO_SECRETS, type SecretRedactor } from '../../../core/redact.ts';
import { ChunksToGeminiStream } from './chunks-to-stream.ts';
import { chatCompletionToGemini } from './from-chat-completion.ts';
import { encodeSseError, JsonArrayFraming } from './stream-framing.ts';
import { geminiStreamError } from './google-error.ts';
import { fromUsageMetadata, hasTokenCounts } from './map-usage.ts';
import { bodyOf, FORMAT, logDropped, positive, urlModel, withModel } from './request.ts';
import { generateContentRequestSchema } from './schemas.ts';
import { geminiToChatRequest } from './to-chat-request.ts';
import type { GenerateContentBody, GenerateContentResponse, UsageMetadata } from './types.ts';

type Outcome = { native: NativeOutcome } | { translated: ChatOutcome; includeThoughts: boolean };

/** How a stream is framed for the client: the frames, the terminator and the error frame. */
export interface Framing {
  /** One response already serialized. */
  frame(json: string): string;
  /** After the last response (`]`, or nothing for SSE). */
  end(): string | undefined;
  /** A failure after the first byte. */
  error(err: GatewayError): string;
  contentType: string;
  keepAlive: string;
}

/** `?alt=sse`: one event per response, CRLF as Google sends it. */
export function sseFraming(): Framing {
  return {
    frame: (json) => `${dataField(json)}\r\n\r\n`,
    end: () => undefined,
    error: encodeSseError,
    contentType: 'text/event-stream; charset=utf-8',
    keepAlive: ': ping\n\n',
  };
}

/** No `alt`: one JSON array; keep-alives are whitespace, which JSON allows between tokens. */
function arrayFraming(): Framing {
  const a = new JsonArrayFraming();
  return {
    frame: (json) => a.element(json),
    end: () => a.end(),
    error: (err) => a.error(err),
    contentType: 'application/json; charset=utf-8',
    keepAlive: '\n',
  };
}

/** An `{"error": …}` payload: Google's way to fail a stream after HTTP 200. */
const ERROR_PAYLOAD = /^\s*\{\s*"error"\s*:/;

function parse<T>(data: string, rc: RequestContext, what: string): T {
  try {
    return JSON.parse(data) as T;
  } catch {
    throw UPSTREAM_MALFORMED({ provider: rc.provider!, what: `a malformed ${what}: ${data.slice(0, 200)}` }, { provider: rc.provider });
  }
}

/** An error payload or malformed data as a stream's first event is a failure before the stream (retried, or a status). */
function errorFirst(provider: string) {
  return (ev: SseEvent) => {
    if (!ERROR_PAYLOAD.test(ev.data)) return malformedFirst(ev.data, provider);
    let e: unknown;
    try {
      e = (JSON.parse(ev.data) as { error?: unknown }).error;
    } catch {
      e = { message: ev.data.slice(0, 200) };
    }
    return geminiStreamError(e, provider, true);
  };
}

/** The handler of `:generateContent` (`stream` false) or `:streamGenerateContent` (true). */
export function generateRoute(pipeline: Pipeline, hooks: Hooks, stream: boolean) {
  const op = stream ? 'streamGenerateContent' : 'generateContent';
  return async function generateContent(ctx: Context): Promise<void> {
    const model = urlModel(ctx);
    const body = bodyOf(ctx);
    const gc = body.generationConfig as { maxOutputTokens?: unknown; candidateCount?: unknown } | null | undefined;
    const a = await pipeline.admit(ctx, {
      schema: generateContentRequestSchema,
      body: withModel(body, model),
      facts: { route: 'gemini', operation: 'generate', model, stream, maxOutputTokens: positive(gc?.maxOutputTokens), choices: positive(gc?.candidateCount) },
    });
    if (!a) return;
    if (await pipeline.fromCache(ctx, a)) return;
    const rc = a.rc;
    const served = await pipeline.dispatch<Outcome>(a, async (p, target, b, call) => {
      const native = p.native?.[FORMAT];
      if (native) return { native: await primeNative(await native(b, call, op), errorFirst(p.name)) };
      const { req, warnings, includeThoughts } = geminiToChatRequest(b as GenerateContentBody, { model: target, stream });
      logDropped(rc, p.name, warnings);
      return { translated: await callChat(p, req, { ...call, rawBody: undefined }), includeThoughts };
    });
    const headers = served.headers;
    const v = served.value;
    if ('native' in v) {
      const r = v.native;
      if (r.type === 'json') {
        const usage = parse<{ usageMetadata?: UsageMetadata } | null>(r.raw, rc, 'JSON body')?.usageMetadata;
        rc.usage = hasTokenCounts(usage) ? fromUsageMetadata(usage) : undefined;
        return pipeline.finish(ctx, a, { status: r.status, body: r.raw, headers });
      }
      const f = framing(ctx);
      const progress = new StreamProgress();
      return pipeline.stream(ctx, a, {
        headers,
        ready: r.ready,
        frames: passthroughFrames(hooks, rc, r.events, f, progress, a.snap.secrets),
        errorFrame: f.error,
        contentType: f.contentType,
        keepAlive: f.keepAlive,
        progress,
      });
    }
    const r = v.translated;
    if (r.type === 'json') {
      rc.usage = r.body.usage ?? undefined;
      return pipeline.finish(ctx, a, { body: JSON.stringify(chatCompletionToGemini(r.body, { includeThoughts: v.includeThoughts })), headers });
    }
    const f = framing(ctx);
    const mapper = new ChunksToGeminiStream({ includeThoughts: v.includeThoughts });
    const progress = new StreamProgress();
    return pipeline.stream(ctx, a, {
      headers,
      ready: r.ready,
      frames: translatedFrames(hooks, rc, r.chunks, progress, {
        format: FORMAT,
        translator: mapper,
        encode: (res) => f.frame(JSON.stringify(res)),
        terminator: () => f.end(),
      }),
      errorFrame: f.error,
      contentType: f.contentType,
      keepAlive: f.keepAlive,
      progress,
    });
  };
}

/** SSE with `?alt=sse` (what @google/genai and Gemini CLI ask for), else the JSON array. */
function framing(ctx: Context): Framing {
  return ctx.query.alt === 'sse' ? sseFraming() : arrayFraming();
}

/** The output fields of a Gemini response, for the early-end estimate: each part's `text`, a function call's `args`. */
const TEXT = '"text":';
const ARGS = '"args":';
/** A usageMetadata with counts (stream chunks may hold only `trafficType`). */
const COUNTS = '"promptTokenCount"';

/** The usage of a raw Gemini response kept unparsed. */
function readUsage(raw: string): Usage | undefined {
  const meta = (JSON.parse(raw) as GenerateContentResponse | null)?.usageMetadata;
  return hasTokenCounts(meta) ? fromUsageMetadata(meta) : undefined;
}

/**
 * Native events, each one's data forwarded unchanged. Usage: Gemini's usageMetadata is
 * cumulative, so only the last event carrying counts is parsed, at the end or when the
 * stream ends early (every event when an onChunk tap needs the responses anyway). No
 * finishReason by the end → truncated. An error payload is forwarded with the provider keys
 * (`secrets`) redacted out of it (Google quotes `Consumer 'api_key:…'` whole), then the stream
 * ends as a failure. Data that is not an object is malformed (core/format/sse-data.ts).
 */
export async function* passthroughFrames(
  hooks: Hooks,
  rc: RequestContext,
  events: AsyncIterable<SseEvent>,
  f: Framing,
  progress: StreamProgress,
  secrets: SecretRedactor = NO_SECRETS,
): AsyncGenerator<string, string | undefined> {
  const tapped = hooks.onChunk.isUsed();
  const holder = { format: FORMAT, value: undefined as unknown } as Chunk & { value: unknown };
  const provider = rc.provider!;
  let lastUsage: string | undefined;
  let finished = false;
  for await (const ev of events) {
    const data = ev.data;
    if (!objectFramed(data)) {
      if (isBlank(data)) continue;
      throw malformedEvent(provider, data);
    }
    if (ERROR_PAYLOAD.test(data)) {
      const redacted = secrets.redact(data);
      const err = geminiStreamError(parseEventObject<{ error?: unknown }>(redacted, provider).error, provider);
      // the error ends the body: for the array, the element and the closing bracket together
      const framed = f.frame(redacted);
      const end = f.end();
      yield end === undefined ? framed : framed + end;
      err.forwarded = true;
      throw err;
    }
    progress.field(data, TEXT);
    if (data.includes('"functionCall"')) progress.field(data, ARGS);
    if (tapped) {
      const res = parseEventObject<GenerateContentResponse>(data, provider);
      if (hasTokenCounts(res.usageMetadata)) {
        rc.usage = fromUsageMetadata(res.usageMetadata);
        progress.reported();
      }
      holder.value = res;
      hooks.onChunk.call(rc, holder);
    } else if (data.includes(COUNTS)) {
      lastUsage = data;
      progress.deferUsage(data, readUsage);
    }
    if (!finished && data.includes('"finishReason"')) finished = true;
    yield f.frame(data);
  }
  if (!finished) throw UPSTREAM_TRUNCATED({ provider, expected: 'finishReason' }, { provider });
  if (lastUsage !== undefined) {
    const meta = parseEventObject<GenerateContentResponse>(lastUsage, provider).usageMetadata;
    if (hasTokenCounts(meta)) rc.usage = fromUsageMetadata(meta);
  }
  return f.end();
}
