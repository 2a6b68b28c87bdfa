import test from 'ava';
import { GatewayError } from '../../core/errors.ts';
import type { ChatCompletionChunk } from '../../lib/common/chat.ts';
import type { SseEvent } from '../../lib/provider.ts';
import { MessagesToCommonStep } from '../../protocols/anthropic-messages/to-common-step.ts';
import { parseSse, readFixture, reassemble, runMapper } from './anthropic-sse-helper.ts';

const CREATED = 1_760_000_000;

function mapFixture(rel: string): ChatCompletionChunk[] {
  return runMapper(new MessagesToCommonStep({ created: CREATED }), parseSse(readFixture(rel)));
}

function ev(data: unknown, event?: string): SseEvent {
  const json = JSON.stringify(data);
  return { event: event ?? (data as { type: string }).type, data: json };
}

const start = (usage: Record<string, number> = { input_tokens: 10, output_tokens: 1 }) =>
  ev({
    type: 'message_start',
    message: { id: 'msg_x', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [], stop_reason: null, stop_sequence: null, usage },
  });

test('basic.sse: the exact chunk sequence (the usage reported so far after message_start and message_delta, the last one final)', (t) => {
  const chunks = mapFixture('anthropic-sdk-typescript/basic.sse');
  const base = { id: 'msg_4QpJur2dWWDjF6C758FbBw5vm12BaVipnK', object: 'chat.completion.chunk', created: CREATED, model: 'claude-opus-4-8' };
  const delta = (d: Record<string, unknown>, finish: string | null = null) => ({ ...base, choices: [{ index: 0, delta: d, finish_reason: finish }] });
  t.deepEqual(chunks, [
    delta({ role: 'assistant', content: '' }),
    {
      ...base,
      choices: [],
      usage: { prompt_tokens: 11, completion_tokens: 1, total_tokens: 12, prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 } },
    },
    delta({ content: 'Hello' }),
    delta({ content: ' there' }),
    delta({ content: '!' }),
    delta({}, 'stop'),
    {
      ...base,
      choices: [],
      usage: { prompt_tokens: 11, completion_tokens: 6, total_tokens: 17, prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 } },
    },
  ]);
});

test('tool_use.sse: text then a tool call indexed 0 although it is anthropic block 1', (t) => {
  const chunks = mapFixture('anthropic-sdk-typescript/tool_use.sse');
  t.deepEqual(
    chunks.map((c) => c.choices[0]?.delta),
    [
      { role: 'assistant', content: '' },
      undefined,
      { content: 'I' },
      { content: "'ll check the current weather in Paris for you." },
      { tool_calls: [{ index: 0, id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn', type: 'function', function: { name: 'get_weather', arguments: '' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"locati' } }] },
      { tool_calls: [{ index: 0, function: { arguments: 'on": "P' } }] },
      { tool_calls: [{ index: 0, function: { arguments: 'ar' } }] },
      { tool_calls: [{ index: 0, function: { arguments: 'is"}' } }] },
      {},
      undefined,
    ],
  );
  const r = reassemble(chunks);
  t.deepEqual(r.finishReasons, ['tool_calls']);
  t.is(r.toolCalls.length, 1);
  t.deepEqual(JSON.parse(r.toolCalls[0].arguments), { location: 'Paris' });
  t.deepEqual(r.usage, { prompt_tokens: 377, completion_tokens: 65, total_tokens: 442, prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 } });
});

test('every chunk carries the same id, object, created and model', (t) => {
  for (const rel of [
    'anthropic-sdk-typescript/tool_use.sse',
    'vercel-ai/anthropic-text.sse',
    'vercel-ai/anthropic-clear-thinking.1.sse',
    'vercel-ai/anthropic-refusal.sse',
  ]) {
    const chunks = mapFixture(rel);
    const first = chunks[0];
    t.true(first.id.startsWith('msg_'), rel);
    for (const c of chunks) {
      t.deepEqual([c.id, c.object, c.created, c.model], [first.id, 'chat.completion.chunk', CREATED, first.model], rel);
    }
  }
});

test('anthropic-text.sse reassembles to the text, stop and usage', (t) => {
  const r = reassemble(mapFixture('vercel-ai/anthropic-text.sse'));
  t.is(r.role, 'assistant');
  t.is(r.content, "Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?");
  t.deepEqual(r.finishReasons, ['stop']);
  t.deepEqual(r.usage, { prompt_tokens: 12, completion_tokens: 30, total_tokens: 42, prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 } });
});

test('anthropic-json-tool.1.sse: a tool call as the first block', (t) => {
  const r = reassemble(mapFixture('vercel-ai/anthropic-json-tool.1.sse'));
  t.is(r.content, '');
  t.deepEqual(
    r.toolCalls.map((c) => [c.id, c.name]),
    [['toolu_01KFbKqPYSuAKujiL6mTfzYA', 'json']],
  );
  t.deepEqual(JSON.parse(r.toolCalls[0].arguments), { elements: [{ location: 'San Francisco', temperature: 58, condition: 'sunny' }] });
  t.deepEqual(r.finishReasons, ['tool_calls']);
  t.is(r.usage?.prompt_tokens, 849);
  t.is(r.usage?.completion_tokens, 47);
});

test('anthropic-tool-no-args.sse: a tool called without arguments ends with "{}"', (t) => {
  const chunks = mapFixture('vercel-ai/anthropic-tool-no-args.sse');
  const r = reassemble(chunks);
  t.is(r.content, "I'll update the issue list for you.");
  t.deepEqual(r.toolCalls, [{ id: 'toolu_01QE1WLsSVp5hy5Q3GmGTmjP', name: 'updateIssueList', arguments: '{}' }]);
  t.deepEqual(r.finishReasons, ['tool_calls']);
  t.deepEqual(r.usage, { prompt_tokens: 565, completion_tokens: 48, total_tokens: 613, prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 } });
});

test('anthropic-refusal.sse: refusal text, then content_filter', (t) => {
  const chunks = mapFixture('vercel-ai/anthropic-refusal.sse');
  t.deepEqual(
    chunks.map((c) => [c.choices[0]?.delta, c.choices[0]?.finish_reason]),
    [
      [{ role: 'assistant', content: '' }, null],
      [undefined, undefined],
      [{ refusal: "This request triggered restrictions on violative cyber content and was blocked under Anthropic's Usage Policy." }, null],
      [{}, 'content_filter'],
      [undefined, undefined],
    ],
  );
  t.deepEqual(chunks[4].usage, {
    prompt_tokens: 18,
    completion_tokens: 5,
    total_tokens: 23,
    prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
  });
});

test('anthropic-clear-thinking.1.sse: thinking → reasoning_content, signature dropped', (t) => {
  const chunks = mapFixture('vercel-ai/anthropic-clear-thinking.1.sse');
  const r = reassemble(chunks);
  t.is(r.reasoning, 'The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185');
  t.is(r.content, '925 ÷ 5 = 185');
  t.deepEqual(r.finishReasons, ['stop']);
  t.is(r.usage?.completion_tokens, 53);
  t.false(JSON.stringify(chunks).includes('EvQBCkYI'), 'the signature never reaches the client');
  // Thinking comes before text: reasoning chunks precede the first content chunk.
  const firstContent = chunks.findIndex((c) => typeof c.choices[0]?.delta.content === 'string' && c.choices[0].delta.content !== '');
  const lastReasoning = chunks.findLastIndex((c) => c.choices[0]?.delta.reasoning_content !== undefined);
  t.true(lastReasoning < firstContent);
});

test('message_delta input_tokens (2025+) override message_start', (t) => {
  const r = reassemble(mapFixture('vercel-ai/anthropic-message-delta-input-tokens.sse'));
  t.is(r.content, 'pong');
  t.deepEqual(r.usage, { prompt_tokens: 61, completion_tokens: 2, total_tokens: 63, prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 } });
});

test('cache reads and writes count into prompt_tokens', (t) => {
  const m = new MessagesToCommonStep({ created: CREATED });
  const chunks = runMapper(m, [
    start({ input_tokens: 10, cache_read_input_tokens: 100, cache_creation_input_tokens: 50, output_tokens: 1 }),
    ev({ type: 'message_delta', delta: { stop_reason: 'max_tokens', stop_sequence: null }, usage: { output_tokens: 20 } }),
    ev({ type: 'message_stop' }),
  ]);
  const r = reassemble(chunks);
  t.deepEqual(r.finishReasons, ['length']);
  t.deepEqual(r.usage, { prompt_tokens: 160, completion_tokens: 20, total_tokens: 180, prompt_tokens_details: { cached_tokens: 100, cache_write_tokens: 50 } });
});

test('several tool_use blocks get ordinals 0, 1 by order, not block index', (t) => {
  const chunks = runMapper(new MessagesToCommonStep({ created: CREATED }), [
    start(),
    ev({ type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }),
    ev({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'plan' } }),
    ev({ type: 'content_block_stop', index: 0 }),
    ev({ type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_a', name: 'a', input: {} } }),
    ev({ type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'toolu_b', name: 'b', input: {} } }),
    ev({ type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"y":2}' } }),
    ev({ type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"x":1}' } }),
    ev({ type: 'content_block_stop', index: 1 }),
    ev({ type: 'content_block_stop', index: 2 }),
    ev({ type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } }),
    ev({ type: 'message_stop' }),
  ]);
  const r = reassemble(chunks);
  t.is(r.reasoning, 'plan');
  t.deepEqual(r.toolCalls, [
    { id: 'toolu_a', name: 'a', arguments: '{"x":1}' },
    { id: 'toolu_b', name: 'b', arguments: '{"y":2}' },
  ]);
});

test('data lines right-padded with spaces (as real recordings are) map identically', (t) => {
  const events = parseSse(readFixture('anthropic-sdk-typescript/tool_use.sse'));
  const padded = events.map((e) => ({ event: e.event, data: `${e.data.replace(/}$/, '   }')}    ` }));
  t.not(padded[0].data, events[0].data);
  t.deepEqual(runMapper(new MessagesToCommonStep({ created: CREATED }), padded), runMapper(new MessagesToCommonStep({ created: CREATED }), events));
});

test('an error event (stream.error-event.overloaded.sse) throws 502 keeping message and type', (t) => {
  const m = new MessagesToCommonStep({ created: CREATED });
  const [event] = parseSse(readFixture('vercel-ai/stream.error-event.overloaded.sse'));
  const err = t.throws(() => m.push(event), { instanceOf: GatewayError });
  t.is(err?.status, 502);
  t.is(err?.message, 'provider anthropic failed mid-stream: Overloaded');
  t.is(err?.code, 'upstream_error');
  t.is(err?.upstreamCode, 'overloaded_error');
  t.is(err?.upstreamStatus, 529);
});

test('an error event mid-stream throws after the chunks already mapped', (t) => {
  const m = new MessagesToCommonStep({ created: CREATED });
  t.is(m.push(start()).length, 2, 'the role chunk, then the usage reported so far');
  t.deepEqual(m.push(ev({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } })), []);
  t.is(m.push(ev({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } }))[0].choices[0].delta.content, 'Hi');
  const err = t.throws(() => m.push({ event: 'error', data: '{"type":"error","error":{"type":"api_error","message":"Internal server error"}}' }), {
    instanceOf: GatewayError,
  });
  t.deepEqual(
    [err?.status, err?.message, err?.code, err?.upstreamCode, err?.upstreamStatus],
    [502, 'provider anthropic failed mid-stream: Internal server error', 'upstream_error', 'api_error', 500],
  );
});

test('malformed JSON data throws 502 malformed upstream event', (t) => {
  const m = new MessagesToCommonStep({ created: CREATED });
  m.push(start());
  const err = t.throws(() => m.push({ event: 'content_block_delta', data: '{"type":"content_block_delta",' }), { instanceOf: GatewayError });
  t.is(err?.status, 502);
  t.is(err?.message, 'provider anthropic sent a stream event that is not a JSON object: {"type":"content_block_delta",');
  t.is(err?.code, 'upstream_malformed');
});

test('content before message_start is malformed', (t) => {
  const m = new MessagesToCommonStep({ created: CREATED });
  t.deepEqual(m.push(ev({ type: 'ping' })), []);
  const err = t.throws(() => m.push(ev({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'x' } })), { instanceOf: GatewayError });
  t.is(err?.status, 502);
  t.is(err?.message, 'provider anthropic sent a malformed stream: content_block_delta before message_start');
});

test('end() before message_stop throws 502; after it, returns nothing', (t) => {
  const cut = new MessagesToCommonStep({ created: CREATED });
  const events = parseSse(readFixture('anthropic-sdk-typescript/basic.sse'));
  for (const e of events.slice(0, -2)) cut.push(e);
  const err = t.throws(() => cut.end(), { instanceOf: GatewayError });
  t.is(err?.status, 502);
  t.is(err?.message, 'provider anthropic ended the stream before message_stop');
  t.is(err?.code, 'upstream_truncated');

  const whole = new MessagesToCommonStep({ created: CREATED });
  for (const e of events) whole.push(e);
  t.deepEqual(whole.end(), []);
});

test('message_stop without a stop_reason still finishes with stop before usage', (t) => {
  const chunks = runMapper(new MessagesToCommonStep({ created: CREATED }), [start(), ev({ type: 'message_stop' })]);
  t.deepEqual(
    chunks.map((c) => (c.choices.length > 0 ? c.choices[0].finish_reason : 'usage')),
    [null, 'usage', 'stop', 'usage'],
  );
});

test('usage reported so far: message_start input counts at once, message_delta the output; the stream ends with one usage chunk after the finish', (t) => {
  const m = new MessagesToCommonStep({ created: CREATED });
  const first = m.push(start({ input_tokens: 40, output_tokens: 1 }));
  t.deepEqual(first[1]!.usage, {
    prompt_tokens: 40,
    completion_tokens: 1,
    total_tokens: 41,
    prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
  });
  m.push(ev({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }));
  t.is(m.push(ev({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } })).length, 1, 'no usage chunk with content');
  const last = m.push(ev({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 7 } }));
  t.deepEqual(
    last.map((c) => (c.choices.length > 0 ? c.choices[0]!.finish_reason : c.usage!.completion_tokens)),
    ['stop', 7],
  );
  t.deepEqual(m.push(ev({ type: 'message_stop' })), [], 'the final usage already went out');
});

test('unknown event and delta types are skipped', (t) => {
  const m = new MessagesToCommonStep({ created: CREATED });
  m.push(start());
  t.deepEqual(m.push(ev({ type: 'content_block_delta', index: 0, delta: { type: 'citations_delta', citation: {} } })), []);
  t.deepEqual(m.push(ev({ type: 'some_future_event' })), []);
  t.deepEqual(m.push({ event: undefined, data: '' }), []);
});
