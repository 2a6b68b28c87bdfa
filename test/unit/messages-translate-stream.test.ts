import { readFileSync } from 'node:fs';
import Anthropic from '@anthropic-ai/sdk';
import test from 'ava';
import type { ChatCompletionChunk } from '../../lib/common/chat.ts';
import type { MessagesStreamEvent } from '../../protocols/anthropic-messages/types.ts';
import { CommonToMessagesStep, encodeMessagesEvent } from '../../protocols/anthropic-messages/from-common-step.ts';

/** The `data:` payloads of a recorded common-format stream, `[DONE]` left out. */
function readChunks(rel: string): ChatCompletionChunk[] {
  const text = readFileSync(new URL(`../fixtures/${rel}`, import.meta.url), 'utf8');
  return text
    .split(/\r?\n\r?\n/)
    .map((ev) =>
      ev
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('\n'),
    )
    .filter((d) => d !== '' && d !== '[DONE]')
    .map((d) => JSON.parse(d) as ChatCompletionChunk);
}

function run(chunks: ChatCompletionChunk[], stopSequences?: string[]): MessagesStreamEvent[] {
  const m = new CommonToMessagesStep({ requestModel: 'my-alias', stopSequences });
  return [...chunks.flatMap((c) => m.push(c)), ...m.end()];
}

/** `type[:index[:block or delta type]]`, to assert a sequence compactly. */
function shape(events: MessagesStreamEvent[]): string[] {
  return events.map((e) => {
    if (e.type === 'content_block_start') return `${e.type}:${e.index}:${e.content_block.type}`;
    if (e.type === 'content_block_delta') return `${e.type}:${e.index}:${e.delta.type}`;
    if (e.type === 'content_block_stop') return `${e.type}:${e.index}`;
    return e.type;
  });
}

/** Concatenated delta payloads of block `index`. */
function reassemble(events: MessagesStreamEvent[], index: number): string {
  return events
    .map((e) => {
      if (e.type !== 'content_block_delta' || e.index !== index) return '';
      const d = e.delta as Record<string, unknown>;
      return String(d.text ?? d.thinking ?? d.partial_json ?? '');
    })
    .join('');
}

function finalDelta(events: MessagesStreamEvent[]) {
  const d = events.find((e) => e.type === 'message_delta');
  if (d?.type !== 'message_delta') throw new Error('no message_delta');
  return d;
}

/** Replays the events through the official Messages SDK and returns the message it accumulates. */
async function viaSdk(events: MessagesStreamEvent[]): Promise<Anthropic.Message> {
  const body = events.map(encodeMessagesEvent).join('');
  const client = new Anthropic({
    apiKey: 'test',
    baseURL: 'http://gw.invalid',
    maxRetries: 0,
    fetch: async () => new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } }),
  });
  return client.messages.stream({ model: 'my-alias', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }).finalMessage();
}

const zeroUsage = { input_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 };

test('recorded tool-call deltas → one tool_use block, exact events', (t) => {
  const events = run(readChunks('openai/vercel-ai/chat.stream.tool-call-deltas.sse'));
  const json = (partial_json: string) => ({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json } });
  t.deepEqual(events, [
    {
      type: 'message_start',
      message: {
        id: 'msg_chatcmpl96aZqmeDpA9IPD6tACY8djkMsJCMP',
        type: 'message',
        role: 'assistant',
        model: 'my-alias',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: zeroUsage,
      },
    },
    { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'call_O17Uplv4lJvD6DVdIvFFeRMw', name: 'test-tool', input: {} } },
    json('{"'),
    json('value'),
    json('":"'),
    json('Spark'),
    json('le'),
    json(' Day'),
    json('"}'),
    { type: 'content_block_stop', index: 0 },
    {
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { input_tokens: 53, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 17 },
    },
    { type: 'message_stop' },
  ]);
  t.deepEqual(JSON.parse(reassemble(events, 0)), { value: 'Sparkle Day' });
});

test('recorded text stream with include_usage → one text block, usage from the trailing chunk', (t) => {
  const events = run(readChunks('openai/openai-node/chat.stream.include-usage.sse'));
  t.deepEqual(shape(events), [
    'message_start',
    'content_block_start:0:text',
    ...Array<string>(10).fill('content_block_delta:0:text_delta'),
    'content_block_stop:0',
    'message_delta',
    'message_stop',
  ]);
  t.is(reassemble(events, 0), '{"city":"San Francisco","units":"c"}');
  t.deepEqual(finalDelta(events), {
    type: 'message_delta',
    delta: { stop_reason: 'end_turn', stop_sequence: null },
    usage: { input_tokens: 17, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 10 },
  });
});

test('recorded reasoning stream → thinking block 0, text block 1', (t) => {
  const chunks = readChunks('dashscope/vercel-ai/alibaba-reasoning.sse');
  const events = run(chunks);
  const deltas = chunks.flatMap((c) => c.choices.map((ch) => ch.delta));
  const thinking = deltas.map((d) => d.reasoning_content ?? '').join('');
  const text = deltas.map((d) => d.content ?? '').join('');
  const s = shape(events);
  const thinkingDeltas = deltas.filter((d) => d.reasoning_content).length;
  const textDeltas = deltas.filter((d) => d.content).length;
  t.deepEqual(s, [
    'message_start',
    'content_block_start:0:thinking',
    ...Array<string>(thinkingDeltas).fill('content_block_delta:0:thinking_delta'),
    'content_block_stop:0',
    'content_block_start:1:text',
    ...Array<string>(textDeltas).fill('content_block_delta:1:text_delta'),
    'content_block_stop:1',
    'message_delta',
    'message_stop',
  ]);
  t.true(thinking.startsWith('We are asked:'));
  t.is(reassemble(events, 0), thinking);
  t.is(reassemble(events, 1), text);
  t.true(text.endsWith('3**'));
  const start = events[1];
  t.deepEqual(start?.type === 'content_block_start' && start.content_block, { type: 'thinking', thinking: '', signature: '' });
  t.deepEqual(finalDelta(events).usage, { input_tokens: 24, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1355 });
  t.is(finalDelta(events).delta.stop_reason, 'end_turn');
});

const chunk = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}): ChatCompletionChunk => ({
  id: '20260313050307df155ecf3e9f4961',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'up',
  choices: [{ index: 0, delta, finish_reason: finish }],
  ...extra,
});
const usageChunk = (usage: Record<string, unknown>): ChatCompletionChunk => ({
  id: 'x',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'up',
  choices: [],
  usage: usage as never,
});

test('whole tool call in one delta and usage on the finish chunk (no separate usage chunk)', (t) => {
  const events = run([
    chunk({ role: 'assistant', content: 'Checking' }),
    chunk({ role: 'assistant', content: ' now.' }),
    chunk({ tool_calls: [{ id: 'call_3532', index: 0, type: 'function', function: { name: 'weather', arguments: '{"location":"Florence,Italy"}' } }] }),
    chunk({ role: 'assistant', content: '' }, 'tool_calls', {
      usage: { prompt_tokens: 173, completion_tokens: 93, total_tokens: 266, prompt_tokens_details: { cached_tokens: 172 } },
    }),
  ]);
  t.deepEqual(shape(events), [
    'message_start',
    'content_block_start:0:text',
    'content_block_delta:0:text_delta',
    'content_block_delta:0:text_delta',
    'content_block_stop:0',
    'content_block_start:1:tool_use',
    'content_block_delta:1:input_json_delta',
    'content_block_stop:1',
    'message_delta',
    'message_stop',
  ]);
  t.is(reassemble(events, 0), 'Checking now.');
  t.deepEqual(JSON.parse(reassemble(events, 1)), { location: 'Florence,Italy' });
  t.deepEqual(finalDelta(events), {
    type: 'message_delta',
    delta: { stop_reason: 'tool_use', stop_sequence: null },
    usage: { input_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 172, output_tokens: 93 },
  });
});

test('usage before the finish chunk gives the same message_delta', (t) => {
  const usage = { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 };
  const a = run([chunk({ content: 'hi' }), chunk({}, 'length'), usageChunk(usage)]);
  const b = run([chunk({ content: 'hi' }), usageChunk(usage), chunk({}, 'length')]);
  t.deepEqual(a, b);
  t.deepEqual(finalDelta(a).delta, { stop_reason: 'max_tokens', stop_sequence: null });
  t.is(finalDelta(a).usage.output_tokens, 2);
});

test('an empty-choices preamble without usage is skipped so message_start carries the real id', (t) => {
  const m = new CommonToMessagesStep({ requestModel: 'my-alias' });
  t.deepEqual(m.push({ choices: [], created: 0, id: '', model: '', object: '', prompt_filter_results: [] } as unknown as ChatCompletionChunk), []);
  const [start] = m.push(chunk({ role: 'assistant', content: '' }));
  t.is(start?.type === 'message_start' && start.message.id, 'msg_20260313050307df155ecf3e9f4961');
});

test('parallel tool calls get their own blocks; a late fragment keeps its block index', (t) => {
  const events = run([
    chunk({ reasoning_content: 'plan' }),
    chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'f', arguments: '{"x":' } }] }),
    chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'g', arguments: '' } }] }),
    chunk({ tool_calls: [{ index: 1, id: '', function: { arguments: '{}' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '1}' } }] }),
    chunk({}, 'tool_calls'),
  ]);
  t.deepEqual(shape(events), [
    'message_start',
    'content_block_start:0:thinking',
    'content_block_delta:0:thinking_delta',
    'content_block_stop:0',
    'content_block_start:1:tool_use',
    'content_block_delta:1:input_json_delta',
    'content_block_stop:1',
    'content_block_start:2:tool_use',
    'content_block_delta:2:input_json_delta',
    'content_block_delta:1:input_json_delta',
    'content_block_stop:2',
    'message_delta',
    'message_stop',
  ]);
  t.deepEqual(JSON.parse(reassemble(events, 1)), { x: 1 });
  t.deepEqual(JSON.parse(reassemble(events, 2)), {});
});

test('kind changes open new blocks with increasing indexes', (t) => {
  const events = run([
    chunk({ reasoning_content: 'a' }),
    chunk({ content: 'b' }),
    chunk({ reasoning_content: 'c' }),
    chunk({ content: 'd' }),
    chunk({}, 'stop'),
  ]);
  t.deepEqual(
    shape(events).filter((s) => s.startsWith('content_block_start')),
    ['content_block_start:0:thinking', 'content_block_start:1:text', 'content_block_start:2:thinking', 'content_block_start:3:text'],
  );
});

test('stop sequence detected across chunk boundaries; refusal deltas end with refusal', (t) => {
  const hit = run([chunk({ content: 'done EN' }), chunk({ content: 'D' }), chunk({}, 'stop')], ['END', 'STOP']);
  t.deepEqual(finalDelta(hit).delta, { stop_reason: 'stop_sequence', stop_sequence: 'END' });
  const finishWithMatch = chunk({}, 'stop');
  finishWithMatch.choices[0]!.matched_stop = 'STOP';
  const reported = run([chunk({ content: 'done' }), finishWithMatch], ['END', 'STOP']);
  t.deepEqual(finalDelta(reported).delta, { stop_reason: 'stop_sequence', stop_sequence: 'STOP' });
  const refused = run([chunk({ refusal: 'No.' }), chunk({}, 'stop')]);
  t.is(reassemble(refused, 0), 'No.');
  t.is(finalDelta(refused).delta.stop_reason, 'refusal');
});

test('an empty stream still yields a whole message; end() is idempotent and later chunks are ignored', (t) => {
  const m = new CommonToMessagesStep({ requestModel: 'my-alias' });
  const events = m.end();
  t.deepEqual(shape(events), ['message_start', 'message_delta', 'message_stop']);
  t.deepEqual(finalDelta(events), { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: zeroUsage });
  t.deepEqual(m.end(), []);
  t.deepEqual(m.push(chunk({ content: 'late' })), []);
});

test('encodeMessagesEvent frames one SSE event named after its type', (t) => {
  t.is(encodeMessagesEvent({ type: 'content_block_stop', index: 2 }), 'event: content_block_stop\ndata: {"type":"content_block_stop","index":2}\n\n');
  t.is(encodeMessagesEvent({ type: 'message_stop' }), 'event: message_stop\ndata: {"type":"message_stop"}\n\n');
});

test('the official Messages SDK accumulates the translated tool-call stream', async (t) => {
  const msg = await viaSdk(run(readChunks('openai/vercel-ai/chat.stream.tool-call-deltas.sse')));
  t.is(msg.id, 'msg_chatcmpl96aZqmeDpA9IPD6tACY8djkMsJCMP');
  t.is(msg.model, 'my-alias');
  t.is(msg.stop_reason, 'tool_use');
  t.deepEqual(msg.content, [{ type: 'tool_use', id: 'call_O17Uplv4lJvD6DVdIvFFeRMw', name: 'test-tool', input: { value: 'Sparkle Day' } }]);
  t.like(msg.usage, { input_tokens: 53, output_tokens: 17, cache_read_input_tokens: 0 });
});

test('the official Messages SDK accumulates the translated reasoning stream', async (t) => {
  const chunks = readChunks('dashscope/vercel-ai/alibaba-reasoning.sse');
  const msg = await viaSdk(run(chunks));
  const deltas = chunks.flatMap((c) => c.choices.map((ch) => ch.delta));
  t.deepEqual(msg.content, [
    { type: 'thinking', thinking: deltas.map((d) => d.reasoning_content ?? '').join(''), signature: '' },
    { type: 'text', text: deltas.map((d) => d.content ?? '').join('') },
  ]);
  t.is(msg.stop_reason, 'end_turn');
  t.like(msg.usage, { input_tokens: 24, output_tokens: 1355 });
});
