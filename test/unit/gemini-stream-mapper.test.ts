import { readFileSync } from 'node:fs';
import test from 'ava';
import { GatewayError } from '../../core/errors.ts';
import type { ChatCompletionChunk, Usage } from '../../lib/common/chat.ts';
import type { SseEvent } from '../../lib/provider.ts';
import { GeminiToCommonStep } from '../../protocols/gemini/to-common-step.ts';
import { counterIdSource, parseToolCallId } from '../../protocols/gemini/tool-call-ids.ts';

const META = { id: 'chatcmpl-gem1', model: 'gemini-3-pro-preview', created: 1_760_000_000 };

/** SSE framing (CRLF, as Gemini sends it) → events; the gateway's parser does this in production. */
function sseEvents(name: string): SseEvent[] {
  const raw = readFileSync(new URL(`../fixtures/gemini/vercel-ai/${name}`, import.meta.url), 'utf8');
  return raw
    .split(/\r\n\r\n|\n\n/)
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const lines = block.split(/\r\n|\n/);
      const data = lines
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).replace(/^ /, ''))
        .join('\n');
      const event = lines
        .find((l) => l.startsWith('event:'))
        ?.slice(6)
        .trim();
      return { event, data };
    });
}

const ev = (payload: unknown): SseEvent => ({ event: undefined, data: JSON.stringify(payload) });

interface Reassembled {
  chunks: ChatCompletionChunk[];
  content: string;
  reasoning: string;
  toolCalls: Array<{ index: number; id: string; name: string; arguments: string }>;
  finish: Array<string | null>;
  usage: Usage | null | undefined;
}

function run(events: SseEvent[], mapper = new GeminiToCommonStep({ ...META, idSource: counterIdSource('t') })): Reassembled {
  const chunks = [...events.flatMap((e) => mapper.push(e)), ...mapper.end()];
  const r: Reassembled = { chunks, content: '', reasoning: '', toolCalls: [], finish: [], usage: undefined };
  for (const c of chunks) {
    if (c.usage !== undefined) r.usage = c.usage;
    for (const choice of c.choices) {
      r.content += choice.delta.content ?? '';
      r.reasoning += choice.delta.reasoning_content ?? '';
      for (const tc of choice.delta.tool_calls ?? []) {
        r.toolCalls.push({ index: tc.index, id: tc.id!, name: tc.function!.name!, arguments: tc.function!.arguments! });
      }
      if (choice.finish_reason !== null) r.finish.push(choice.finish_reason);
    }
  }
  return r;
}

function assertEnvelope(t: import('ava').ExecutionContext, chunks: ChatCompletionChunk[]): void {
  for (const c of chunks) {
    t.is(c.id, META.id);
    t.is(c.object, 'chat.completion.chunk');
    t.is(c.model, META.model);
    t.is(c.created, META.created);
  }
  t.deepEqual(chunks[0]!.choices, [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]);
}

test('google-text.sse: text, stop, the running usage when it changes and a trailing usage chunk with thoughts counted as completion', (t) => {
  const r = run(sseEvents('google-text.sse'));
  assertEnvelope(t, r.chunks);
  t.is(r.content, 'There are **3** "r"s in strawberry.\n\nst**r**awbe**rr**y');
  t.is(r.reasoning, '');
  t.deepEqual(r.toolCalls, []);
  t.deepEqual(r.finish, ['stop']);
  // role, 2 text chunks (the empty signature-only part emits nothing), finish, the usage
  // after each event whose counts changed (5, then 23 candidate tokens), the final usage
  t.is(r.chunks.length, 7);
  t.deepEqual(r.chunks.at(-1)!.choices, []);
  t.deepEqual(
    r.chunks.filter((c) => c.usage !== undefined).map((c) => c.usage!.completion_tokens),
    [5 + 185, 23 + 185, 23 + 185],
  );
  t.deepEqual(r.usage, {
    prompt_tokens: 9,
    completion_tokens: 23 + 185,
    total_tokens: 217,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 185 },
  });
});

test('google-reasoning.sse: text and cumulative usage from the last event', (t) => {
  const r = run(sseEvents('google-reasoning.sse'));
  assertEnvelope(t, r.chunks);
  t.is(r.content, 'There are **3** "r"s in strawberry.\n\nHere is the breakdown: st**r**awbe**rr**y.');
  t.deepEqual(r.finish, ['stop']);
  t.is(r.usage?.prompt_tokens, 9);
  t.is(r.usage?.completion_tokens, 29 + 256);
  t.is(r.usage?.total_tokens, 294);
  t.is(r.usage?.completion_tokens_details?.reasoning_tokens, 256);
});

test('google-tool-call.sse: one whole tool call, its signature in the id, finish tool_calls', (t) => {
  const events = sseEvents('google-tool-call.sse');
  const r = run(events);
  assertEnvelope(t, r.chunks);
  const signature = (JSON.parse(events[0]!.data) as { candidates: Array<{ content: { parts: Array<{ thoughtSignature: string }> } }> }).candidates[0]!.content
    .parts[0]!.thoughtSignature;
  t.true(signature.startsWith('EqUCCqICAb4+9vsh8Pd5'));
  t.is(r.toolCalls.length, 1);
  t.is(r.toolCalls[0]!.index, 0);
  t.is(r.toolCalls[0]!.name, 'weather');
  t.is(r.toolCalls[0]!.arguments, '{"location":"San Francisco"}');
  t.true(r.toolCalls[0]!.id.startsWith('call_gw_t0_ts_'));
  t.deepEqual(parseToolCallId(r.toolCalls[0]!.id), { minted: true, signature });
  const toolChunk = r.chunks.find((c) => c.choices[0]?.delta.tool_calls !== undefined)!;
  t.deepEqual(toolChunk.choices[0]!.delta.tool_calls![0]!.type, 'function');
  t.is(r.content, '');
  // STOP comes on a later event with only an empty text part: the call seen earlier decides
  t.deepEqual(r.finish, ['tool_calls']);
  t.deepEqual([r.usage?.prompt_tokens, r.usage?.completion_tokens, r.usage?.total_tokens], [29, 15 + 45, 89]);
});

test('google-stream-tool-call-arguments.sse: streamed partialArgs become two whole calls with running indexes', (t) => {
  const r = run(sseEvents('google-stream-tool-call-arguments.sse'));
  assertEnvelope(t, r.chunks);
  t.deepEqual(
    r.toolCalls.map(({ index, name, arguments: a }) => ({ index, name, arguments: a })),
    [
      { index: 0, name: 'getWeather', arguments: '{"location":"Boston"}' },
      { index: 1, name: 'getWeather', arguments: '{"location":"San Francisco"}' },
    ],
  );
  // only the first parallel call carries a signature, as Gemini sends it
  t.true(parseToolCallId(r.toolCalls[0]!.id).signature?.startsWith('CiMBjz1rX25KieIB4d4AwFn8'));
  t.deepEqual(parseToolCallId(r.toolCalls[1]!.id), { minted: true, signature: undefined });
  t.not(r.toolCalls[0]!.id, r.toolCalls[1]!.id);
  t.deepEqual(r.finish, ['tool_calls']);
  t.deepEqual([r.usage?.prompt_tokens, r.usage?.completion_tokens, r.usage?.total_tokens], [26, 23 + 132, 181]);
});

// The recordings above have no thought parts, blocks or errors: literal events below.

test('thought text becomes reasoning_content, kept apart from content', (t) => {
  const r = run([
    ev({ candidates: [{ content: { role: 'model', parts: [{ text: 'Counting letters', thought: true }] }, index: 0 }] }),
    ev({ candidates: [{ content: { role: 'model', parts: [{ text: '… r, r, r.', thought: true }, { text: 'Three.' }] }, index: 0 }] }),
    ev({
      candidates: [{ content: { role: 'model', parts: [{ text: '' }] }, finishReason: 'MAX_TOKENS', index: 0 }],
      usageMetadata: { promptTokenCount: 4, candidatesTokenCount: 2, thoughtsTokenCount: 10, cachedContentTokenCount: 3, totalTokenCount: 16 },
    }),
  ]);
  t.is(r.reasoning, 'Counting letters… r, r, r.');
  t.is(r.content, 'Three.');
  t.deepEqual(r.finish, ['length']);
  t.deepEqual(r.usage, {
    prompt_tokens: 4,
    completion_tokens: 12,
    total_tokens: 16,
    prompt_tokens_details: { cached_tokens: 3 },
    completion_tokens_details: { reasoning_tokens: 10 },
  });
});

test('a whole call without args gets "{}"; parallel whole calls in one event count up', (t) => {
  const r = run([
    ev({
      candidates: [
        {
          content: {
            role: 'model',
            parts: [{ functionCall: { name: 'now' }, thoughtSignature: 'QUJD' }, { functionCall: { name: 'add', args: { a: 1, b: [2, 3] } } }],
          },
          finishReason: 'STOP',
          index: 0,
        },
      ],
    }),
  ]);
  t.deepEqual(r.toolCalls, [
    { index: 0, id: 'call_gw_t0_ts_QUJD', name: 'now', arguments: '{}' },
    { index: 1, id: 'call_gw_t1', name: 'add', arguments: '{"a":1,"b":[2,3]}' },
  ]);
  t.deepEqual(r.finish, ['tool_calls']);
  t.is(r.usage, undefined);
  t.is(r.chunks.length, 4); // role, 2 calls, finish: no usage chunk without usage
});

test('a blocked prompt (no candidates, blockReason) finishes with content_filter', (t) => {
  const r = run([ev({ promptFeedback: { blockReason: 'PROHIBITED_CONTENT' }, usageMetadata: { promptTokenCount: 7, totalTokenCount: 7 } })]);
  t.deepEqual(
    r.chunks.map((c) => c.choices[0]?.delta),
    [{ role: 'assistant', content: '' }, {}, undefined],
  );
  t.deepEqual(r.finish, ['content_filter']);
  t.is(r.content, '');
  t.deepEqual([r.usage?.prompt_tokens, r.usage?.completion_tokens], [7, 0]);
});

test('SAFETY mid-answer maps to content_filter; a repeated finishReason is not repeated', (t) => {
  const r = run([
    ev({ candidates: [{ content: { role: 'model', parts: [{ text: 'Sure' }] }, finishReason: 'SAFETY', index: 0 }] }),
    ev({ candidates: [{ finishReason: 'SAFETY', index: 0 }] }),
  ]);
  t.deepEqual(r.finish, ['content_filter']);
});

test('a usageMetadata without counts does not replace the last counted one', (t) => {
  const r = run([
    ev({
      candidates: [{ content: { parts: [{ text: 'a' }] }, finishReason: 'STOP' }],
      usageMetadata: { promptTokenCount: 2, candidatesTokenCount: 1, totalTokenCount: 3 },
    }),
    ev({ usageMetadata: { trafficType: 'ON_DEMAND' } }),
  ]);
  t.is(r.usage?.total_tokens, 3);
});

test('end() before any finishReason throws 502', (t) => {
  const events = sseEvents('google-text.sse').slice(0, 2);
  const mapper = new GeminiToCommonStep(META);
  for (const e of events) mapper.push(e);
  const err = t.throws(() => mapper.end(), { instanceOf: GatewayError });
  t.is(err.status, 502);
  t.is(err.message, 'provider gemini ended the stream before finishReason');
  t.is(err.code, 'upstream_truncated');
  t.throws(() => new GeminiToCommonStep(META).end(), { message: 'provider gemini ended the stream before finishReason' });
});

test('malformed JSON throws 502 quoting the data', (t) => {
  const mapper = new GeminiToCommonStep(META);
  const err = t.throws(() => mapper.push({ event: undefined, data: '{"candidates": [' }), { instanceOf: GatewayError });
  t.is(err.status, 502);
  t.is(err.message, 'provider gemini sent a stream event that is not a JSON object: {"candidates": [');
  t.is(err.code, 'upstream_malformed');
  t.throws(() => mapper.push({ event: undefined, data: '42' }), { instanceOf: GatewayError });
});

test('an error payload mid-stream throws 502 with the upstream message and status', (t) => {
  const mapper = new GeminiToCommonStep(META);
  t.is(mapper.push(sseEvents('google-text.sse')[0]!).length, 3, 'role, text, the usage so far');
  const err = t.throws(() => mapper.push(ev({ error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } })), {
    instanceOf: GatewayError,
  });
  t.is(err.status, 502);
  t.is(err.message, 'provider gemini failed mid-stream: The model is overloaded. Please try again later.');
  t.is(err.upstreamStatus, 503);
  t.is(err.code, 'upstream_error');
  t.is(err.upstreamCode, 'UNAVAILABLE');
});

test('streamed partialArgs handle nested paths, arrays, non-string values and hostile keys', (t) => {
  const r = run([
    ev({ candidates: [{ content: { parts: [{ functionCall: { name: 'plan', willContinue: true } }] } }] }),
    ev({
      candidates: [
        {
          content: {
            parts: [
              {
                functionCall: {
                  willContinue: true,
                  partialArgs: [
                    { jsonPath: '$.recipe.name', stringValue: 'Lasa', willContinue: true },
                    { jsonPath: '$.recipe.name', stringValue: 'gna' },
                    { jsonPath: '$.recipe.items[0].qty', numberValue: 2 },
                    { jsonPath: '$.recipe.items[1].veg', boolValue: false },
                    { jsonPath: '$.note', nullValue: 'NULL_VALUE' },
                    { jsonPath: '$.__proto__.polluted', stringValue: 'no' },
                    { jsonPath: 'not-a-path', stringValue: 'skipped' },
                  ],
                },
              },
            ],
          },
        },
      ],
    }),
    ev({ candidates: [{ content: { parts: [{ functionCall: {} }] }, finishReason: 'STOP' }] }),
  ]);
  t.is(r.toolCalls.length, 1);
  t.deepEqual(JSON.parse(r.toolCalls[0]!.arguments), {
    recipe: { name: 'Lasagna', items: [{ qty: 2 }, { veg: false }] },
    note: null,
    ['__proto__']: { polluted: 'no' },
  });
  t.is(({} as Record<string, unknown>).polluted, undefined);
  t.deepEqual(r.finish, ['tool_calls']);
});
