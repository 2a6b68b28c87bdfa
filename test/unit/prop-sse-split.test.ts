/**
 * Property: an upstream stream reads the same whatever the network did to its bytes (issue
 * 14 "fuzz", item 3b). Each stream reader — the core SSE reader, the common-format provider
 * (and zhipu's mapped chunks), the anthropic and gemini stream mappers, and each client
 * format's passthrough (Messages, Responses, Gemini, with and without an onChunk tap) — is
 * fed a recorded stream (with a multi-byte UTF-8 event added) split at every byte boundary,
 * and in random chunkings (fast-check, seeded, a fixed number of runs): what comes out
 * (events, chunks, frames, the error, the usage, the early-end tally) equals what the unsplit
 * bytes give.
 */
import test from 'ava';
import fc from 'fast-check';
import { RequestContext, type RequestFacts } from '../../core/context.ts';
import { StreamProgress } from '../../lib/common/estimate.ts';
import { createHooks } from '../../core/hooks.ts';
import type { UpstreamClient } from '../../lib/http/client.ts';
import { sseEvents } from '../../lib/http/sse-parse.ts';
import { createLogger } from '../../server/log.ts';
import type { ChatCompletionChunk } from '../../lib/common/chat.ts';
import type { SseEvent } from '../../lib/provider.ts';
import type { StreamStep } from '../../lib/vendor/side.ts';
import { passthroughFrames, type NativeStep } from '../../core/pipeline/passthrough.ts';
import { NO_SECRETS } from '../../lib/redact.ts';
import { MessagesNativeStep } from '../../protocols/anthropic-messages/native-step.ts';
import { sseFraming } from '../../protocols/gemini/stream-framing.ts';
import { GeminiNativeStep } from '../../protocols/gemini/native-step.ts';
import { ResponsesNativeStep } from '../../protocols/openai-responses/native-step.ts';
import { MessagesToCommonStep } from '../../protocols/anthropic-messages/to-common-step.ts';
import { GeminiToCommonStep } from '../../protocols/gemini/to-common-step.ts';
import { vendorProvider } from '../../lib/vendor/provider.ts';
import { openaiChat } from '../../protocols/openai-chat/protocol.ts';
import { mapZhipuChunk, zhipuChunkNeedsMap } from '../../plugins/providers/zhipu/quirks.ts';
import { fixture } from '../helpers/upstream.ts';
import { chunksToSse } from '../e2e/responses-helpers.ts';

const SEED = 1414;
const RANDOM_RUNS = 60;
const UNICODE = 'héllo 世界 🎉 ½';

/** Events of a recorded stream, framing kept. */
function frames(sse: string): string[] {
  const sep = sse.includes('\r\n\r\n') ? '\r\n\r\n' : '\n\n';
  return sse
    .split(sep)
    .filter((e) => e.trim() !== '')
    .map((e) => e + sep);
}

const OPENAI = frames(fixture('openai/vercel-ai/openai-text.sse'));
const openaiChunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-u', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`;
const ZHIPU = frames(fixture('zhipu/fantasy-cassettes/glm-4.7-flash.simple_streaming.0.response.sse'));
const ANTHROPIC = frames(fixture('anthropic/anthropic-sdk-typescript/basic.sse'));
const GEMINI = frames(fixture('gemini/vercel-ai/google-text.sse'));
const RESPONSES_ALL = frames(chunksToSse(fixture('responses/vercel-ai/openai-reasoning-encrypted-content.1.chunks.txt').split('\n')));
const RESPONSES_DONE = RESPONSES_ALL.find((f) => f.startsWith('event: response.completed'))!;

/** The streams, each small enough to be split at every byte boundary, with a UTF-8 event added. */
const STREAMS = {
  openai: [
    ...OPENAI.slice(0, 4),
    openaiChunk({ content: UNICODE }),
    openaiChunk({ tool_calls: [{ index: 0, id: 'c', function: { name: 'f', arguments: '{"q":"世界"}' } }] }),
    ...OPENAI.slice(-3),
  ].join(''),
  zhipu: [
    ...ZHIPU.slice(0, 3),
    openaiChunk({ content: UNICODE }),
    openaiChunk({ content: '' }, { choices: [{ index: 0, delta: {}, finish_reason: 'sensitive' }] }),
    ...ZHIPU.slice(-2),
  ].join(''),
  anthropic: [
    ...ANTHROPIC.slice(0, 4),
    `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: UNICODE } })}\n\n`,
    ...ANTHROPIC.slice(4),
  ].join(''),
  gemini: [
    GEMINI[0]!,
    `data: ${JSON.stringify({ candidates: [{ content: { parts: [{ text: UNICODE }], role: 'model' }, index: 0 }], usageMetadata: { promptTokenCount: 9, candidatesTokenCount: 12, totalTokenCount: 21 } })}\r\n\r\n`,
    ...GEMINI.slice(1),
  ].join(''),
  responses: [
    ...RESPONSES_ALL.slice(0, 5),
    `event: response.output_text.delta\ndata: ${JSON.stringify({ type: 'response.output_text.delta', sequence_number: 5, item_id: 'msg_u', output_index: 1, content_index: 0, delta: UNICODE })}\n\n`,
    RESPONSES_DONE,
  ].join(''),
  /** The SSE grammar's corners: comments, event names, `data:` without a space, multi-line data, id/retry, CR-only and CRLF line ends, an unknown field, a last event without its blank line. */
  grammar:
    ': comment\n\nevent: a\ndata: {"x":1}\n\ndata:{"y":"no space"}\n\ndata: {"m":\ndata: "multi"}\n\nid: 7\nretry: 100\ndata: {"z":"🎉"}\r\rdata: {"crlf":"世界"}\r\n\r\nunknown field\ndata: {"last":true}',
};

/** `bytes` as a socket might deliver them: cut at `cuts` (sorted offsets). */
async function* chunked(bytes: Buffer, cuts: readonly number[]): AsyncGenerator<Uint8Array> {
  let at = 0;
  for (const c of cuts) {
    if (c <= at || c >= bytes.length) continue;
    yield bytes.subarray(at, c);
    at = c;
  }
  yield bytes.subarray(at);
}

/** What a reader makes of a stream's events, as one comparable string (outputs, then the error if one was thrown). */
type Reader = (events: AsyncIterable<SseEvent>) => Promise<string>;

async function transcript(bytes: Buffer, cuts: readonly number[], read: Reader): Promise<string> {
  return read(sseEvents(chunked(bytes, cuts), 'up', 'http://up', 60_000));
}

/** Drains an async iterable into JSON lines; a thrown error ends the transcript with its message. */
async function drain(items: AsyncIterable<unknown>, after?: () => unknown): Promise<string> {
  let out = '';
  try {
    for await (const x of items) out += `${typeof x === 'string' ? x : JSON.stringify(x)}\n`;
  } catch (err) {
    out += `THROWN ${(err as Error).message}\n`;
  }
  return out + (after ? JSON.stringify(after()) : '');
}

function mapperReader(make: () => StreamStep<SseEvent, ChatCompletionChunk>): Reader {
  return async (events) => {
    const m = make();
    async function* chunks() {
      for await (const ev of events) yield* m.push(ev);
      yield* m.end();
    }
    return drain(chunks());
  };
}

/** The common-format provider's stream reading, its upstream client faked to hand over `events`. */
function compatibleReader(zhipu: boolean): Reader {
  return async (events) => {
    const http = { send: async () => ({ statusCode: 200, headers: {}, body: undefined }), events: async () => events } as unknown as UpstreamClient;
    const p = vendorProvider(
      { name: 'up', config: { kind: zhipu ? 'zhipu' : 'vllm', models: ['m'], timeout_seconds: 60 }, http: () => http },
      { protocol: openaiChat, origin: 'http://up/v1', auth: {}, ...(zhipu ? { quirks: { chunk: mapZhipuChunk, chunkIf: zhipuChunkNeedsMap } } : {}) },
    );
    const r = await p.chat(
      { model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true },
      { signal: new AbortController().signal, log: LOG, headers: {}, rawBody: undefined, query: '' },
    );
    if (r.type !== 'stream') throw new Error('not a stream');
    return drain(r.chunks);
  };
}

const LOG = createLogger('silent');
function context(format: string): RequestContext {
  const facts: RequestFacts = { route: 'r', format, operation: 'generate', model: 'm', stream: true };
  const rc = new RequestContext('id', facts, undefined, { model: 'm' }, '{"model":"m"}', 'm', 0, LOG);
  rc.provider = 'up';
  return rc;
}
function hooks(tapped: boolean) {
  const h = createHooks();
  if (tapped) h.onChunk.tap('probe', () => undefined);
  return h;
}

function passthroughReaders(tapped: boolean): Record<string, Reader> {
  /** A format's native stream through the kernel's passthrough loop, read by `reader`. */
  const through = (format: string, reader: (rc: RequestContext, progress: StreamProgress) => NativeStep, extra?: (p: StreamProgress) => unknown) =>
    (async (events) => {
      const rc = context(format);
      const progress = new StreamProgress();
      return drain(withReturn(passthroughFrames(hooks(tapped), rc, format, events, reader(rc, progress), NO_SECRETS)), () => [
        rc.usage,
        progress.bytes,
        ...(extra ? [extra(progress)] : []),
      ]);
    }) as Reader;
  return {
    messages: through('anthropic-messages', (rc, p) => new MessagesNativeStep(rc, p)),
    responses: through('openai-responses', (rc, p) => new ResponsesNativeStep(rc, p, async () => undefined)),
    gemini: through(
      'gemini',
      (rc, p) => new GeminiNativeStep(rc, p, sseFraming()),
      (p) => p.deferredUsage(),
    ),
  };
}

/** A frame generator's yields and its return value (the terminator frame) as one iterable. */
async function* withReturn(g: AsyncGenerator<string, string | undefined>): AsyncGenerator<string> {
  for (;;) {
    const n = await g.next();
    if (n.done) {
      if (n.value !== undefined) yield `RETURN ${n.value}`;
      return;
    }
    yield n.value;
  }
}

const READERS: Array<[string, keyof typeof STREAMS, Reader]> = [
  ['core SSE reader (grammar corners)', 'grammar', (events) => drain(events)],
  ['core SSE reader (openai)', 'openai', (events) => drain(events)],
  ['common-format provider', 'openai', compatibleReader(false)],
  ['zhipu mapped chunks', 'zhipu', compatibleReader(true)],
  ['anthropic stream mapper', 'anthropic', mapperReader(() => new MessagesToCommonStep({ created: 1, provider: 'up' }))],
  ['gemini stream mapper', 'gemini', mapperReader(() => new GeminiToCommonStep({ id: 'g', model: 'm', created: 1, provider: 'up' }))],
  ...([false, true] as const).flatMap((tapped): Array<[string, keyof typeof STREAMS, Reader]> => {
    const r = passthroughReaders(tapped);
    const how = tapped ? 'tapped' : 'untapped';
    return [
      [`Messages passthrough (${how})`, 'anthropic', r.messages!],
      [`Responses passthrough (${how})`, 'responses', r.responses!],
      [`Gemini passthrough (${how})`, 'gemini', r.gemini!],
    ];
  }),
];

for (const [name, stream, read] of READERS) {
  test(`${name}: the same output whatever the split, at every byte boundary and in random chunkings`, async (t) => {
    const bytes = Buffer.from(STREAMS[stream], 'utf8');
    const whole = await transcript(bytes, [], read);
    t.false(whole.includes('THROWN'), `the unsplit stream reads cleanly: ${whole.slice(-300)}`);
    // every boundary, multi-byte UTF-8 sequences and CRLF pairs included
    for (let i = 1; i < bytes.length; i++) {
      const got = await transcript(bytes, [i], read);
      if (got !== whole) {
        t.is(got, whole, `split at byte ${i}: ${JSON.stringify(bytes.subarray(Math.max(0, i - 20), i + 20).toString('utf8'))}`);
        return;
      }
    }
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { minLength: 2, maxLength: 64 }), async (cuts) => {
        cuts.sort((a, b) => a - b);
        return (await transcript(bytes, cuts, read)) === whole;
      }),
      { seed: SEED, numRuns: RANDOM_RUNS },
    );
    // one byte at a time
    t.is(
      await transcript(
        bytes,
        Array.from({ length: bytes.length }, (_, i) => i),
        read,
      ),
      whole,
    );
  });
}

test('core SSE reader: the grammar corners give exactly these events, the last one without its blank line included', async (t) => {
  const events: SseEvent[] = [];
  for await (const ev of sseEvents(chunked(Buffer.from(STREAMS.grammar), []), 'up', 'http://up', 60_000)) events.push(ev);
  t.deepEqual(
    events.map((e) => [e.event, e.data]),
    [
      ['a', '{"x":1}'],
      [undefined, '{"y":"no space"}'],
      [undefined, '{"m":\n"multi"}'],
      [undefined, '{"z":"🎉"}'],
      [undefined, '{"crlf":"世界"}'],
      [undefined, '{"last":true}'],
    ],
  );
});
