/**
 * A native Gemini stream as gw reads it while forwarding it (core/pipeline/passthrough.ts).
 * usageMetadata is cumulative, so only the last response carrying counts is parsed, at the end.
 * An `{"error": …}` payload is forwarded, then the stream fails.
 * @see Gemini API reference: models.streamGenerateContent
 */
import { errors, type GatewayError, type RequestContext, type Usage } from 'gw/plugin';
import { errorPayload, malformedFirst, parseEventObject } from '../../lib/common/sse-data.ts';
import type { NativeStep, NativeVerdict } from '../../core/pipeline/passthrough.ts';
import type { SseEvent } from '../../lib/provider.ts';
import type { StreamProgress } from '../../lib/common/estimate.ts';
import { geminiStreamError } from './google-error.ts';
import { filteredResponse } from './map-finish-reason.ts';
import { fromUsageMetadata, hasTokenCounts } from './map-usage.ts';
import type { Framing } from './stream-framing.ts';
import type { GenerateContentResponse } from './types.ts';

/** An `{"error": …}` payload: Google's way to fail a stream after HTTP 200. */
export const ERROR_PAYLOAD = /^\s*\{\s*"error"\s*:/;
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

/** A native stream's first event as a failure (an error payload, or not a JSON object), or undefined. */
export function geminiFirstError(ev: SseEvent, provider: string): GatewayError | undefined {
  if (!ERROR_PAYLOAD.test(ev.data)) return malformedFirst(ev.data, provider);
  return geminiStreamError(errorPayload(ev.data, 'error'), provider, true);
}

/** One native Gemini stream's reading, in `framing`. */
export class GeminiNativeStep implements NativeStep {
  readonly #rc: RequestContext;
  readonly #progress: StreamProgress;
  readonly #framing: Framing;
  /** The last response with counts, unparsed. */
  #lastUsage: string | undefined;
  #finished = false;

  constructor(rc: RequestContext, progress: StreamProgress, framing: Framing) {
    this.#rc = rc;
    this.#progress = progress;
    this.#framing = framing;
  }

  /** `error` for an error payload; Gemini's responses have no type. */
  typeOf(ev: SseEvent): string | undefined {
    return ERROR_PAYLOAD.test(ev.data) ? 'error' : undefined;
  }

  mustParse(type: string | undefined): boolean {
    return type === 'error';
  }

  failing(type: string | undefined): boolean {
    return type === 'error';
  }

  read(type: string | undefined, data: string, parsed: object | undefined): NativeVerdict {
    if (type === 'error') return geminiStreamError((parsed as { error?: unknown }).error, this.#rc.provider!);
    const progress = this.#progress;
    progress.field(data, TEXT);
    if (data.includes('"functionCall"')) progress.field(data, ARGS);
    if (parsed !== undefined) {
      const meta = (parsed as GenerateContentResponse).usageMetadata;
      if (hasTokenCounts(meta)) {
        this.#rc.usage = fromUsageMetadata(meta);
        progress.reported();
      }
    } else if (data.includes(COUNTS)) {
      this.#lastUsage = data;
      progress.deferUsage(data, readUsage);
    }
    if (!this.#finished && data.includes('"finishReason"')) this.#finished = true;
    return undefined;
  }

  frame(ev: SseEvent, step: NativeVerdict): string {
    const framed = this.#framing.frame(ev.data);
    if (step === undefined) return framed;
    // the error ends the body: for the array, the element and the closing bracket together
    const end = this.#framing.end();
    return end === undefined ? framed : framed + end;
  }

  ended(): string | undefined {
    const rc = this.#rc;
    const provider = rc.provider!;
    if (!this.#finished) throw errors.UPSTREAM_TRUNCATED({ provider, expected: 'finishReason' }, { provider });
    if (this.#lastUsage !== undefined) {
      const meta = parseEventObject<GenerateContentResponse>(this.#lastUsage, provider).usageMetadata;
      if (hasTokenCounts(meta)) rc.usage = fromUsageMetadata(meta);
    }
    return this.#framing.end();
  }

  errorFrame(err: GatewayError): string {
    return this.#framing.error(err);
  }

  filtered(): string {
    const rc = this.#rc;
    return this.#framing.frame(filteredResponse(rc.servedModel, rc.choices)) + (this.#framing.end() ?? '');
  }
}
