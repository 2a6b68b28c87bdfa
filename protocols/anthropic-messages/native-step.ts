/**
 * A native Messages stream as gw reads it while forwarding it (the passthrough loop,
 * core/pipeline/passthrough.ts): usage from `message_start` and `message_delta`, the end at
 * `message_stop`, an `error` event forwarded and then the stream's failure. The other events
 * are not parsed: their delta's one output field is counted for the early-end estimate.
 * @see Anthropic docs: Streaming Messages
 */
import { errors, type GatewayError, type RequestContext } from 'gw/plugin';
import { dataField } from '../../lib/http/sse-write.ts';
import { errorPayload, malformedFirst } from '../../lib/common/sse-data.ts';
import type { NativeStep, NativeVerdict } from '../../core/pipeline/passthrough.ts';
import type { SseEvent } from '../../lib/provider.ts';
import type { StreamProgress } from '../../lib/common/estimate.ts';
import { messagesErrorBody, messagesStreamError } from './errors.ts';
import { encodeMessagesEvent } from './from-common-step.ts';
import { fromMessagesUsage, mergeMessagesUsage } from './map-usage.ts';
import { RefusalEnding } from './refusal.ts';
import type { MessagesUsage } from './types.ts';

/** The output fields of a `content_block_delta`, for the early-end estimate. */
const TEXT = '"text":';
const THINKING = '"thinking":';
const PARTIAL_JSON = '"partial_json":';

/** A failure after the first byte, as Messages clients expect it. */
export function messagesErrorFrame(err: GatewayError): string {
  return `event: error\ndata: ${messagesErrorBody(err)}\n\n`;
}

/** A native stream's first event as a failure (an `event: error`, or not a JSON object), or undefined. */
export function messagesFirstError(ev: SseEvent, provider: string): GatewayError | undefined {
  if (ev.event !== 'error') return malformedFirst(ev.data, provider);
  return messagesStreamError(errorPayload(ev.data, 'error'), provider, true);
}

/** One native Messages stream's reading. */
export class MessagesNativeStep implements NativeStep {
  readonly #rc: RequestContext;
  readonly #progress: StreamProgress;
  /** The usage reported so far (message_start's, then message_delta's cumulative counts). */
  readonly #usage: Partial<MessagesUsage> = {};
  /** What a stream an onStream step cut ends with; made at the first event let out through steps. */
  #ending: RefusalEnding | undefined;

  constructor(rc: RequestContext, progress: StreamProgress) {
    this.#rc = rc;
    this.#progress = progress;
  }

  typeOf(ev: SseEvent): string | undefined {
    return ev.event;
  }

  mustParse(type: string | undefined): boolean {
    return type === 'message_start' || type === 'message_delta' || type === 'error';
  }

  failing(type: string | undefined): boolean {
    return type === 'error';
  }

  read(type: string | undefined, data: string, parsed: object | undefined): NativeVerdict {
    const progress = this.#progress;
    if (type === 'content_block_delta') {
      const before = progress.bytes;
      progress.field(data, TEXT);
      if (progress.bytes === before) progress.field(data, PARTIAL_JSON);
      if (progress.bytes === before) progress.field(data, THINKING);
    } else if (type === 'message_start') {
      this.#report((parsed as { message?: { usage?: unknown } }).message?.usage);
    } else if (type === 'message_delta') {
      this.#report((parsed as { usage?: unknown }).usage);
    } else if (type === 'message_stop') return 'end';
    else if (type === 'error') return messagesStreamError((parsed as { error?: unknown }).error, this.#rc.provider!);
    return undefined;
  }

  #report(usage: unknown): void {
    this.#rc.usage = fromMessagesUsage(mergeMessagesUsage(this.#usage, usage));
    this.#progress.reported();
  }

  frame(ev: SseEvent): string {
    return `${ev.event ? `event: ${ev.event}\n` : ''}${dataField(ev.data)}\n\n`;
  }

  ended(): string | undefined {
    const provider = this.#rc.provider!;
    throw errors.UPSTREAM_TRUNCATED({ provider, expected: 'message_stop' }, { provider });
  }

  errorFrame(err: GatewayError): string {
    return messagesErrorFrame(err);
  }

  released(ev: SseEvent): void {
    (this.#ending ??= new RefusalEnding(this.#rc)).seen(ev.event);
  }

  filtered(): string {
    let frames = '';
    for (const ev of (this.#ending ??= new RefusalEnding(this.#rc)).events()) frames += encodeMessagesEvent(ev);
    return frames;
  }
}
