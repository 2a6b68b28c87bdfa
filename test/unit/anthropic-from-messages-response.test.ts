import test from 'ava';
import type { MessagesResponse } from '../../protocols/anthropic-messages/types.ts';
import { fromMessagesResponse } from '../../protocols/anthropic-messages/from-messages-response.ts';
import { fromMessagesStopReason } from '../../protocols/anthropic-messages/map-stop-reason.ts';
import { fromMessagesUsage as mapUsage } from '../../protocols/anthropic-messages/map-usage.ts';
import { readJsonFixture } from './anthropic-sse-helper.ts';

const CREATED = 1_760_000_000;
const fixture = (rel: string) => fromMessagesResponse(readJsonFixture<MessagesResponse>(rel), { created: CREATED });
const noCache = { cached_tokens: 0, cache_write_tokens: 0 };

test('anthropic-text.json → the whole chat completion', (t) => {
  t.deepEqual(fixture('vercel-ai/anthropic-text.json'), {
    id: 'msg_01VdEjxAP5ahtHKrrRdNBteQ',
    object: 'chat.completion',
    created: CREATED,
    model: 'claude-sonnet-4-5-20250929',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: "Hello! I'm doing well, thanks for asking. How are you doing today? Is there anything I can help you with?",
          refusal: null,
        },
        finish_reason: 'stop',
        logprobs: null,
      },
    ],
    usage: { prompt_tokens: 12, completion_tokens: 29, total_tokens: 41, prompt_tokens_details: noCache },
  });
});

test('anthropic-json-tool.1.json: tool_use only → content null, tool_calls, finish tool_calls', (t) => {
  const res = fixture('vercel-ai/anthropic-json-tool.1.json');
  const { message, finish_reason } = res.choices[0];
  t.is(message.content, null);
  t.is(finish_reason, 'tool_calls');
  t.is(message.tool_calls?.length, 1);
  const call = message.tool_calls![0];
  t.deepEqual([call.id, call.type, call.function.name], ['toolu_01Q9ExVZnzZj7E2QQYHYtNUa', 'function', 'json']);
  t.deepEqual(JSON.parse(call.function.arguments).elements[3], { location: 'Berlin', temperature: -9, condition: 'snowy' });
  t.is(call.function.arguments.slice(0, 52), '{"elements":[{"location":"San Francisco","temperatur');
  t.deepEqual(res.usage, { prompt_tokens: 1151, completion_tokens: 87, total_tokens: 1238, prompt_tokens_details: noCache });
});

test('anthropic-tool-no-args.json: text and a tool call with "{}" arguments', (t) => {
  const { message, finish_reason } = fixture('vercel-ai/anthropic-tool-no-args.json').choices[0];
  t.true(typeof message.content === 'string' && message.content.endsWith('Okay, I will update the current issue list:'));
  t.deepEqual(message.tool_calls, [{ id: 'toolu_01LRmxn9vGM1d2DZSDBowdZ1', type: 'function', function: { name: 'updateIssueList', arguments: '{}' } }]);
  t.is(finish_reason, 'tool_calls');
});

test('anthropic-refusal.json: content_filter, empty content, the explanation as refusal', (t) => {
  const res = fixture('vercel-ai/anthropic-refusal.json');
  t.deepEqual(res.choices[0], {
    index: 0,
    message: {
      role: 'assistant',
      content: '',
      refusal: "This request triggered restrictions on violative cyber content and was blocked under Anthropic's Usage Policy.",
    },
    finish_reason: 'content_filter',
    logprobs: null,
  });
  t.deepEqual(res.usage, { prompt_tokens: 18, completion_tokens: 5, total_tokens: 23, prompt_tokens_details: noCache });
});

test('anthropic-clear-thinking.1.json: thinking → reasoning_content, signature not exposed', (t) => {
  const res = fixture('vercel-ai/anthropic-clear-thinking.1.json');
  const { message } = res.choices[0];
  t.is(message.reasoning_content, '925 divided by 5 = 185');
  t.is(message.content, '925 ÷ 5 = 185');
  t.false(JSON.stringify(res).includes('Er4BCkYI'));
  t.is(res.usage?.completion_tokens, 33);
});

test('several text blocks concatenate; redacted_thinking and server tool blocks are left out', (t) => {
  const res = fromMessagesResponse(
    {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-opus-4-8',
      stop_reason: 'pause_turn',
      stop_sequence: null,
      content: [
        { type: 'redacted_thinking', data: 'xyz' },
        { type: 'text', text: 'Searching. ' },
        { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'q' } },
        { type: 'text', text: 'Done.' },
      ],
      usage: { input_tokens: 5, output_tokens: 7, cache_read_input_tokens: 20, cache_creation_input_tokens: 3 },
    },
    { created: CREATED },
  );
  t.deepEqual(res.choices[0].message, { role: 'assistant', content: 'Searching. Done.', refusal: null });
  t.is(res.choices[0].finish_reason, 'stop');
  t.deepEqual(res.usage, { prompt_tokens: 28, completion_tokens: 7, total_tokens: 35, prompt_tokens_details: { cached_tokens: 20, cache_write_tokens: 3 } });
});

test('created defaults to the current time in seconds', (t) => {
  const before = Math.floor(Date.now() / 1000);
  const res = fromMessagesResponse(readJsonFixture<MessagesResponse>('vercel-ai/anthropic-text.json'));
  t.true(res.created >= before && res.created <= before + 1);
});

test('fromMessagesStopReason follows the finish_reason table of docs/design.md', (t) => {
  const table: Array<[string | null, string | null]> = [
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['pause_turn', 'stop'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['tool_use', 'tool_calls'],
    ['refusal', 'content_filter'],
    ['something_new', 'stop'],
    [null, null],
  ];
  for (const [reason, expected] of table) t.is(fromMessagesStopReason(reason), expected, String(reason));
});

test('mapUsage: null cache counts read as 0', (t) => {
  t.deepEqual(mapUsage({ input_tokens: 3, output_tokens: 4, cache_read_input_tokens: null, cache_creation_input_tokens: null }), {
    prompt_tokens: 3,
    completion_tokens: 4,
    total_tokens: 7,
    prompt_tokens_details: noCache,
  });
});
