/** The two kinds of upstream call inside dispatch, a stream's first item awaited there (lib/resilience/prime.ts): a stream failing before it is retried like any failure. */
import { UPSTREAM_MALFORMED } from '../../lib/http/errors.ts';
import type { GatewayError } from '../errors.ts';
import type { ChatCompletion, ChatCompletionChunk, ChatRequest } from '../../lib/common/chat.ts';
import { malformedFirst } from '../../lib/common/sse-data.ts';
import { KEEP_ALIVE_MS } from '../../lib/http/sse-write.ts';
import type { CallContext, NativeResult, Provider, SseEvent, StreamItem } from '../../lib/provider.ts';
import { primeFirst } from '../../lib/resilience/prime.ts';

/** A translated call's outcome: a whole completion, or a chunk stream whose first item may be at hand. */
export type ChatOutcome = { type: 'json'; body: ChatCompletion; raw?: string } | { type: 'stream'; chunks: AsyncIterable<StreamItem>; ready: boolean };

/** A native call's outcome: the upstream's bytes, or its events with the first one primed. */
export type NativeOutcome =
  | { type: 'json'; status: number; raw: string; contentType: string }
  | { type: 'stream'; events: AsyncIterable<SseEvent>; ready: boolean };

/** `provider.chat`, stream primed: a stream that starts malformed (lib/common/sse-data.ts) is a failure dispatch retries. */
export async function callChat(p: Provider, req: ChatRequest, call: CallContext): Promise<ChatOutcome> {
  const r = await p.chat(req, call);
  if (r.type === 'json') return r;
  const primed = await primeFirst(r.chunks, KEEP_ALIVE_MS);
  const err = typeof primed.first === 'string' ? malformedFirst(primed.first, p.name) : undefined;
  if (err) {
    await primed.close();
    throw err;
  }
  return { type: 'stream', chunks: primed.items, ready: primed.ready };
}

/** A native result, stream primed: a first event `failFirst` calls a failure closes the stream and is thrown (dispatch retries it). */
export async function primeNative(r: NativeResult, failFirst?: (ev: SseEvent) => GatewayError | undefined): Promise<NativeOutcome> {
  if (r.type === 'json') return r;
  const primed = await primeFirst(r.events, KEEP_ALIVE_MS);
  const err = primed.first && failFirst?.(primed.first);
  if (err) {
    await primed.close();
    throw err;
  }
  return { type: 'stream', events: primed.items, ready: primed.ready };
}

/** A stream item as a chunk object (common-format providers hand their upstream's text). @throws UPSTREAM_MALFORMED when it is not a JSON object */
export function chunkOf(item: StreamItem, provider: string | undefined): ChatCompletionChunk {
  if (typeof item !== 'string') return item;
  let v: unknown;
  try {
    v = JSON.parse(item);
  } catch {
    v = undefined;
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw UPSTREAM_MALFORMED({ provider: provider ?? 'upstream', what: `a malformed stream chunk: ${item.slice(0, 200)}` }, { provider });
  return v as ChatCompletionChunk;
}

type NativeBytes = { status: number; raw: string };

/** `p`'s native answer to operation `op` of protocol `id` as bytes; undefined when it has no such entry or answered a stream. */
export async function nativeBytes(p: Provider, id: string, op: string, body: Record<string, unknown>, call: CallContext): Promise<NativeBytes | undefined> {
  const native = p.native?.[id];
  if (native === undefined) return undefined;
  const r = await native(body, call, op);
  return r.type === 'json' ? r : undefined;
}
