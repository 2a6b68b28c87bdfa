/**
 * A native Responses stream as gw reads it while forwarding it (core/pipeline/passthrough.ts).
 * Only terminal and failure events are parsed. The final Response is saved before the
 * terminating event goes out, so a client that saw the end can read it back at once.
 * `response.created` is kept as text, parsed only if a later failure's `response.failed` needs it.
 * @see OpenAI API reference: Responses streaming events
 */
import { errors, type GatewayError, type RequestContext } from 'gw/plugin';
import { dataField } from '../../lib/http/sse-write.ts';
import type { NativeStep, NativeVerdict } from '../../core/pipeline/passthrough.ts';
import type { SseEvent } from '../../lib/provider.ts';
import type { StreamProgress } from '../../lib/common/estimate.ts';
import { encodeAll } from './encode-event.ts';
import { responsesStreamError } from './errors.ts';
import { fromResponsesUsage } from './map-usage.ts';
import { typeOf } from './passthrough.ts';
import { streamFailureEvents } from './stream-failure.ts';
import type { ResponsesResponse } from './types.ts';

/** Stores the finished Response (never throws). */
export type SaveResponse = (response: ResponsesResponse) => Promise<void>;

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

function terminal(type: string | undefined): boolean {
  return type === 'response.completed' || type === 'response.incomplete';
}

/** One native Responses stream's reading. */
export class ResponsesNativeStep implements NativeStep {
  readonly #rc: RequestContext;
  readonly #progress: StreamProgress;
  readonly #save: SaveResponse;
  /** The last sequence_number forwarded (-1: none). */
  #seq = -1;
  #created: string | undefined;
  /** The Response of the terminal event, stored before it goes out. */
  #final: ResponsesResponse | undefined;
  /** An upstream `error` event, forwarded; the stream then ends as a failure. */
  #failure: GatewayError | undefined;

  constructor(rc: RequestContext, progress: StreamProgress, save: SaveResponse) {
    this.#rc = rc;
    this.#progress = progress;
    this.#save = save;
  }

  typeOf(ev: SseEvent): string | undefined {
    return ev.event ?? typeOf(ev.data);
  }

  mustParse(type: string | undefined): boolean {
    return terminal(type) || this.failing(type);
  }

  failing(type: string | undefined): boolean {
    return type === 'error' || type === 'response.failed';
  }

  read(type: string | undefined, data: string, parsed: object | undefined): NativeVerdict {
    const rc = this.#rc;
    this.#seq = sequenceOf(data) ?? this.#seq + 1;
    if (type === 'response.created') this.#created = data;
    // every output delta (text, refusal, reasoning, tool arguments) carries its text in `delta`
    else if (type?.endsWith('.delta')) this.#progress.field(data, DELTA);
    else if (terminal(type)) {
      this.#final = (parsed as { response?: ResponsesResponse }).response;
      rc.usage = fromResponsesUsage(this.#final?.usage);
      return 'end';
    } else if (type === 'error') this.#failure ??= responsesStreamError(parsed as Parameters<typeof responsesStreamError>[0], rc.provider!);
    else if (type === 'response.failed') {
      // a failed response may say what it used: charged from it
      const usage = fromResponsesUsage((parsed as { response?: ResponsesResponse }).response?.usage);
      if (usage) {
        rc.usage = usage;
        this.#progress.reported();
      }
      return this.#failure ?? responsesStreamError(parsed as Parameters<typeof responsesStreamError>[0], rc.provider!);
    }
    return undefined;
  }

  frame(ev: SseEvent): string {
    return `${ev.event === undefined ? '' : `event: ${ev.event}\n`}${dataField(ev.data)}\n\n`;
  }

  async beforeEnd(): Promise<void> {
    if (this.#final) await this.#save(this.#final);
  }

  ended(): string | undefined {
    if (this.#failure) {
      this.#failure.forwarded = true;
      throw this.#failure;
    }
    const provider = this.#rc.provider!;
    throw errors.UPSTREAM_TRUNCATED({ provider, expected: 'response.completed' }, { provider });
  }

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
