import test from 'ava';
import { GatewayError } from '../../core/errors.ts';
import type { ChatCompletion, ChatMessage, Usage } from '../../lib/common/chat.ts';
import { toToolInput } from '../../lib/common/tool-input.ts';
import { chatCompletionToMessages } from '../../protocols/anthropic-messages/from-chat-completion.ts';
import { findStopSequence, toMessagesStopReason } from '../../protocols/anthropic-messages/map-stop-reason.ts';
import { toMessageId, toMessagesUsage } from '../../protocols/anthropic-messages/map-usage.ts';

function completion(
  message: Partial<ChatMessage>,
  finish: string | null = 'stop',
  usage: Usage | null = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  extra: Record<string, unknown> = {},
): ChatCompletion {
  return {
    id: 'chatcmpl-abc-123',
    object: 'chat.completion',
    created: 1,
    model: 'upstream-model',
    choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finish, ...extra }],
    usage,
  };
}
const opts = { requestModel: 'my-alias' };

test('text answer', (t) => {
  t.deepEqual(chatCompletionToMessages(completion({ content: 'Hello!' }), opts), {
    id: 'msg_chatcmplabc123',
    type: 'message',
    role: 'assistant',
    model: 'my-alias',
    content: [{ type: 'text', text: 'Hello!' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 5 },
  });
});

test('reasoning_content becomes a thinking block before the text (recorded qwen3-max shape)', (t) => {
  const res = chatCompletionToMessages(
    completion({ content: '**Answer: 3**', reasoning_content: 'count the r letters' }, 'stop', {
      prompt_tokens: 24,
      completion_tokens: 1668,
      total_tokens: 1692,
      completion_tokens_details: { reasoning_tokens: 1353 },
      prompt_tokens_details: { cached_tokens: 0 },
    }),
    opts,
  );
  t.deepEqual(res.content, [
    { type: 'thinking', thinking: 'count the r letters', signature: '' },
    { type: 'text', text: '**Answer: 3**' },
  ]);
  t.deepEqual(res.usage, { input_tokens: 24, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1668 });
});

test('tool calls become tool_use blocks after the text; unusable arguments survive', (t) => {
  const res = chatCompletionToMessages(
    completion(
      {
        content: 'Let me check.',
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
          { id: 'call_2', type: 'function', function: { name: 'now', arguments: '' } },
          { id: 'call_3', type: 'function', function: { name: 'weather', arguments: '{"city":"Ro' } },
          { id: '', type: 'function', function: { name: 'list', arguments: '[1]' } },
        ],
      },
      'tool_calls',
    ),
    opts,
  );
  t.deepEqual(res.content, [
    { type: 'text', text: 'Let me check.' },
    { type: 'tool_use', id: 'call_1', name: 'weather', input: { city: 'Paris' } },
    { type: 'tool_use', id: 'call_2', name: 'now', input: {} },
    { type: 'tool_use', id: 'call_3', name: 'weather', input: { _raw: '{"city":"Ro' } },
    { type: 'tool_use', id: 'toolu_chatcmplabc123_3', name: 'list', input: { _raw: '[1]' } },
  ]);
  t.is(res.stop_reason, 'tool_use');
});

test('toToolInput', (t) => {
  t.deepEqual(toToolInput(undefined), {});
  t.deepEqual(toToolInput('  '), {});
  t.deepEqual(toToolInput('null'), {});
  t.deepEqual(toToolInput('{"a":{"b":[1]}}'), { a: { b: [1] } });
  t.deepEqual(toToolInput('"str"'), { _raw: '"str"' });
});

test('each finish_reason maps to its stop_reason', (t) => {
  const cases: Array<[string | null, string]> = [
    ['stop', 'end_turn'],
    ['length', 'max_tokens'],
    ['tool_calls', 'tool_use'],
    ['function_call', 'tool_use'],
    ['content_filter', 'refusal'],
    ['sensitive', 'refusal'],
    ['network_error', 'end_turn'],
    [null, 'end_turn'],
  ];
  for (const [finish, stop] of cases) {
    t.is(chatCompletionToMessages(completion({ content: 'x' }, finish), opts).stop_reason, stop, String(finish));
  }
});

test('tool calls under finish_reason "stop" still report tool_use', (t) => {
  const res = chatCompletionToMessages(
    completion({ content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] }, 'stop'),
    opts,
  );
  t.is(res.stop_reason, 'tool_use');
  t.deepEqual(toMessagesStopReason('length', { hasToolUse: true }), { stop_reason: 'max_tokens', stop_sequence: null });
});

test('stop_sequence: text ending with a stop string, or a reported matched string', (t) => {
  const stops = { requestModel: 'm', stopSequences: ['\n\nHuman:', 'END'] };
  const kept = chatCompletionToMessages(completion({ content: 'The answer.END' }), stops);
  t.is(kept.stop_reason, 'stop_sequence');
  t.is(kept.stop_sequence, 'END');
  const reported = chatCompletionToMessages(completion({ content: 'The answer.' }, 'stop', null, { stop_reason: '\n\nHuman:' }), stops);
  t.deepEqual([reported.stop_reason, reported.stop_sequence], ['stop_sequence', '\n\nHuman:']);
  const natural = chatCompletionToMessages(completion({ content: 'The answer.' }), stops);
  t.deepEqual([natural.stop_reason, natural.stop_sequence], ['end_turn', null]);
  // A length cut that happens to end with a stop string is still max_tokens.
  t.is(chatCompletionToMessages(completion({ content: 'xEND' }, 'length'), stops).stop_reason, 'max_tokens');
  t.is(findStopSequence('abc', ['c', 'bc']), 'bc');
  t.is(findStopSequence('abc', ['x'], 'y'), null);
  t.is(findStopSequence('abc', undefined, 'c'), null);
});

test('refusal field → text block and stop_reason refusal', (t) => {
  const res = chatCompletionToMessages(completion({ content: null, refusal: "I can't help with that." }), opts);
  t.deepEqual(res.content, [{ type: 'text', text: "I can't help with that." }]);
  t.is(res.stop_reason, 'refusal');
});

test('usage: cached tokens move out of input_tokens', (t) => {
  const res = chatCompletionToMessages(
    completion({ content: 'x' }, 'stop', {
      prompt_tokens: 173,
      completion_tokens: 93,
      total_tokens: 266,
      prompt_tokens_details: { cached_tokens: 172 },
      completion_tokens_details: { reasoning_tokens: 65 },
    }),
    opts,
  );
  t.deepEqual(res.usage, { input_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 172, output_tokens: 93 });
  t.deepEqual(
    toMessagesUsage({ prompt_tokens: 100, completion_tokens: 7, total_tokens: 107, prompt_tokens_details: { cached_tokens: 30, cache_write_tokens: 50 } }),
    // writes without a TTL split are Anthropic's default, 5 minutes
    {
      input_tokens: 20,
      cache_creation_input_tokens: 50,
      cache_read_input_tokens: 30,
      cache_creation: { ephemeral_5m_input_tokens: 50, ephemeral_1h_input_tokens: 0 },
      output_tokens: 7,
    },
  );
  t.deepEqual(toMessagesUsage(null), { input_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 });
  // Usage semantics round-trip: prompt_tokens = input + cache read + cache write.
  const u = toMessagesUsage({ prompt_tokens: 5, completion_tokens: 1, total_tokens: 6, prompt_tokens_details: { cached_tokens: 9 } });
  t.is(u.input_tokens, 0);
});

test('ids: msg_ kept, others prefixed and stripped to alphanumerics, empty ones minted', (t) => {
  t.is(toMessageId('msg_01QC4g3HwBThD4BaNtBckFDJ'), 'msg_01QC4g3HwBThD4BaNtBckFDJ');
  t.is(toMessageId('chatcmpl-3792851e-8f1b'), 'msg_chatcmpl3792851e8f1b');
  t.is(toMessageId('2026031305:x'), 'msg_2026031305x');
  t.regex(toMessageId(''), /^msg_[0-9a-f]{32}$/);
  t.not(toMessageId(''), toMessageId(''));
});

test('empty message → empty content; no choices → 502', (t) => {
  t.deepEqual(chatCompletionToMessages(completion({ content: '' }), opts).content, []);
  const err = t.throws(() => chatCompletionToMessages({ ...completion({}), choices: [] }, opts), { instanceOf: GatewayError });
  t.is(err?.status, 502);
});
