/**
 * The two stream paths of POST /v1/responses, as frame generators for `pipeline.stream`:
 * a native upstream's events forwarded as they came, and common-format chunks translated
 * into Responses events. Both hand the final Response to `save` (the store) before the
 * terminating event (`response.completed` / `response.incomplete`) goes out, so a client
 * that got the end of the stream can read the response back at once; and both tell a
 * failure after the first byte with `error` + `response.failed`, numbered on from the last
 * `sequence_number` sent.
 *
 * @see https://platform.openai.com/docs/api-reference/responses-streaming
 */
import type { RequestContext } from '../../../core/context.ts';
import { UPSTREAM_TRUNCATED } from '../../../core/error-codes.ts';
import { StreamProgress } from '../../../core/format/estimate.ts';
import { isBlank, malformedEvent, objectFramed, parseEventObject } from '../../../core/format/sse-data.ts';
import type { GatewayError } from '../../../core/errors.ts';
import type { Chunk, Hooks } from '../../../core/hooks.ts';
import { dataField } from '../../../core/http/sse-write.ts';
import type { SseEvent } from '../../../core/provider.ts';
import { NO_SECRETS, type SecretRedactor } from '../../../core/redact.ts';
import { encodeResponsesEvent } from './encode-event.ts';
import { responsesStreamError } from './errors.ts';
import { fromResponsesUsage } from './map-usage.ts';
import { typeOf } from './passthrough.ts';
import { streamFailureEvents } from './stream-failure.ts';
import type { ResponsesResponse, ResponsesStreamEvent } from './types.ts';

const FORMAT = 'openai-responses';

/** Stores the finished Response (never throws). */
export type SaveResponse = (response: ResponsesResponse) => Promise<void>;

/** Events as SSE text. */
export function encodeAll(events: ResponsesStreamEvent[]): string {
  let s = '';
  for (const ev of events) s += encodeResponsesEvent(ev);
  return s;
}

const SEQ = '"sequence_number":';
/** The output field of every `*.delta` event, for the early-end estimate. */
const DELTA = '"delta":';

/** An event's `sequence_number`, read without parsing the event (undefined when it has none). */
export function sequenceOf(data: string): number | undefined {
  const at = data.lastIndexOf(SEQ);
  if (at < 0) return undefined;
  let i = at + SEQ.length;
  while (data.charCodeAt(i) === 32) i++;
  let n = 0;
  let digits = 0;
  for (let c = data.charCodeAt(i); c >= 48 && c <= 57; c = data.charCodeAt(++i)) {
    n = n * 10 + (c - 48);
    digits++;
  }
  return digits > 0 ? n : undefined;
}

/**
 * A native upstream's Responses stream, forwarded event by event. Only the events gw needs
 * are parsed: the terminal ones (usage, the Response to store) and failures, every event
 * when an onChunk tap listens. `response.created` is kept as text, parsed only if the
 * stream fails later (the `response.failed` gw then sends needs the Response). Failures
 * (`error`, `response.failed`) are forwarded with the provider keys (`secrets`) redacted.
 */
export class NativeStream {
  readonly #hooks: Hooks;
  readonly #rc: RequestContext;
  readonly #save: SaveResponse;
  readonly #secrets: SecretRedactor;
  /** The last sequence_number forwarded (-1: none). */
  #seq = -1;
  #created: string | undefined;

  /** What was forwarded, for the charge of a stream that ends early. */
  readonly progress = new StreamProgress();

  constructor(hooks: Hooks, rc: RequestContext, save: SaveResponse, secrets: SecretRedactor = NO_SECRETS) {
    this.#hooks = hooks;
    this.#rc = rc;
    this.#save = save;
    this.#secrets = secrets;
  }

  async *frames(events: AsyncIterable<SseEvent>): AsyncGenerator<string, string | undefined> {
    const rc = this.#rc;
    const provider = rc.provider!;
    const tapped = this.#hooks.onChunk.isUsed();
    const holder = { format: FORMAT, value: undefined as unknown } as Chunk & { value: unknown };
    /** An upstream `error` event, forwarded; the stream then ends as a failure. */
    let failure: GatewayError | undefined;
    const progress = this.progress;
    for await (const ev of events) {
      const type = ev.event ?? typeOf(ev.data);
      const failed = type === 'error' || type === 'response.failed';
      const data = failed ? this.#secrets.redact(ev.data) : ev.data;
      const terminal = type === 'response.completed' || type === 'response.incomplete';
      let obj: { response?: ResponsesResponse } | undefined;
      // core/format/sse-data.ts: blank data is skipped, data that is not an object is malformed
      if (tapped || terminal || failed) {
        if (isBlank(data)) continue;
        obj = parseEventObject(data, provider);
      } else if (!objectFramed(data)) {
        if (isBlank(data)) continue;
        throw malformedEvent(provider, data);
      }
      this.#seq = sequenceOf(data) ?? this.#seq + 1;
      if (type === 'response.created') this.#created = data;
      // every output delta (text, refusal, reasoning, tool arguments) carries its text in `delta`
      else if (type?.endsWith('.delta')) progress.field(data, DELTA);
      if (tapped) {
        holder.value = obj as ResponsesStreamEvent;
        this.#hooks.onChunk.call(rc, holder);
      }
      const frame = `${ev.event === undefined ? '' : `event: ${ev.event}\n`}${dataField(data)}\n\n`;
      if (terminal) {
        rc.usage = fromResponsesUsage(obj?.response?.usage);
        if (obj?.response) await this.#save(obj.response);
        return frame;
      }
      yield frame;
      if (type === 'error') failure ??= responsesStreamError(obj as Parameters<typeof responsesStreamError>[0], provider);
      else if (type === 'response.failed') {
        // a failed response may say what it used: charged from it
        const usage = fromResponsesUsage(obj?.response?.usage);
        if (usage) {
          rc.usage = usage;
          progress.reported();
        }
        // forwarded as it came: the client has the upstream's own account of the failure
        const err = failure ?? responsesStreamError(obj as Parameters<typeof responsesStreamError>[0], provider);
        err.forwarded = true;
        throw err;
      }
    }
    if (failure) {
      failure.forwarded = true;
      throw failure;
    }
    throw UPSTREAM_TRUNCATED({ provider, expected: 'response.completed' }, { provider });
  }

  /** A failure gw noticed (cut, timeout, malformed): `error` and `response.failed`, numbered on. */
  errorFrame(err: GatewayError): string {
    let response: ResponsesResponse | undefined;
    if (this.#created !== undefined) {
      try {
        response = (JSON.parse(this.#created) as { response?: ResponsesResponse }).response;
      } catch {
        response = undefined;
      }
    }
    return encodeAll(streamFailureEvents(err, this.#seq + 1, response));
  }
}
