import test from 'ava';
import { GatewayError } from '../../core/errors.ts';
import type { MessagesRequest } from '../../protocols/anthropic-messages/types.ts';
import { chatCompletionToMessages } from '../../protocols/anthropic-messages/from-chat-completion.ts';
import { messagesToChatRequest } from '../../protocols/anthropic-messages/to-chat-request.ts';

const base = { model: 'm', max_tokens: 100 };
const req = (extra: Record<string, unknown>): MessagesRequest => ({ ...base, messages: [{ role: 'user', content: 'hi' }], ...extra }) as MessagesRequest;

function badParam(t: import('ava').ExecutionContext, body: unknown, param: string): void {
  const err = t.throws(() => messagesToChatRequest(body as MessagesRequest), { instanceOf: GatewayError });
  t.is(err?.status, 400);
  t.is(err?.param, param);
  t.true(err?.message.startsWith(param));
}

test('system string becomes a leading system message; max_tokens, temperature, top_p, stop kept', (t) => {
  const { req: out, warnings } = messagesToChatRequest(req({ system: 'be brief', temperature: 0.2, top_p: 0.9, stop_sequences: ['END'] }));
  t.deepEqual(out, {
    model: 'm',
    messages: [
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'hi' },
    ],
    max_tokens: 100,
    temperature: 0.2,
    top_p: 0.9,
    stop: ['END'],
  });
  t.deepEqual(warnings, []);
});

test('system text blocks are joined by a blank line; their cache_control is dropped with a warning', (t) => {
  const { req: out, warnings } = messagesToChatRequest(
    req({
      system: [
        { type: 'text', text: 'a' },
        { type: 'text', text: 'b', cache_control: { type: 'ephemeral' } },
      ],
    }),
  );
  t.deepEqual(out.messages[0], { role: 'system', content: 'a\n\nb' });
  t.deepEqual(warnings, ['cache_control dropped: no common-format equivalent (at system[1].cache_control)']);
});

test('a system message inside messages stays at its position', (t) => {
  const { req: out } = messagesToChatRequest({
    ...base,
    messages: [
      { role: 'user', content: 'one' },
      { role: 'system', content: [{ type: 'text', text: 'switch to French' }] },
      { role: 'user', content: 'two' },
    ],
  });
  t.deepEqual(out.messages, [
    { role: 'user', content: 'one' },
    { role: 'system', content: 'switch to French' },
    { role: 'user', content: 'two' },
  ]);
});

test('one text block → string content; several blocks → parts, images as image_url', (t) => {
  const { req: out } = messagesToChatRequest({
    ...base,
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'just text' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what is this?' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
          { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
        ],
      },
    ],
  });
  t.deepEqual(out.messages, [
    { role: 'user', content: 'just text' },
    { role: 'assistant', content: 'ok' },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'what is this?' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
        { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
      ],
    },
  ]);
});

test('documents: text source → text part, base64 → file part', (t) => {
  const { req: out } = messagesToChatRequest({
    ...base,
    messages: [
      {
        role: 'user',
        content: [
          { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'plain doc' } },
          { type: 'document', title: 'spec.pdf', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' } },
        ],
      },
    ],
  });
  t.deepEqual(out.messages[0]!.content, [
    { type: 'text', text: 'plain doc' },
    { type: 'file', file: { filename: 'spec.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' } },
  ]);
});

test('tool_use → tool_calls; tool_result → tool messages placed before the rest of the user turn', (t) => {
  const { req: out, warnings } = messagesToChatRequest({
    ...base,
    messages: [
      { role: 'user', content: 'weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'two calls', signature: 'sig' },
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'toolu_2', name: 'weather', input: { city: 'Rome' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'also, thanks' },
          { type: 'tool_result', tool_use_id: 'toolu_1', content: '18C' },
          {
            type: 'tool_result',
            tool_use_id: 'toolu_2',
            is_error: true,
            content: [
              { type: 'text', text: 'service down' },
              { type: 'text', text: 'retry later' },
            ],
          },
        ],
      },
    ],
  });
  t.deepEqual(out.messages, [
    { role: 'user', content: 'weather in Paris and Rome?' },
    {
      role: 'assistant',
      content: 'Checking.',
      tool_calls: [
        { id: 'toolu_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
        { id: 'toolu_2', type: 'function', function: { name: 'weather', arguments: '{"city":"Rome"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'toolu_1', content: '18C' },
    { role: 'tool', tool_call_id: 'toolu_2', content: 'Error: service down\nretry later' },
    { role: 'user', content: 'also, thanks' },
  ]);
  t.deepEqual(warnings, ['thinking blocks dropped: no common-format equivalent (at messages[1].content[0])']);
});

test('assistant with only tool_use → content null; user turn of only tool results → no user message; empty result → ""', (t) => {
  const { req: out } = messagesToChatRequest({
    ...base,
    messages: [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'call_a', name: 'noop', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_a' }] },
    ],
  });
  t.deepEqual(out.messages.slice(1), [
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'noop', arguments: '{}' } }] },
    { role: 'tool', tool_call_id: 'call_a', content: '' },
  ]);
});

test('images inside a tool_result move to the following user message', (t) => {
  const { req: out, warnings } = messagesToChatRequest({
    ...base,
    messages: [
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 't1',
            content: [
              { type: 'text', text: 'screenshot:' },
              { type: 'image', source: { type: 'url', url: 'https://x/s.png' } },
            ],
          },
        ],
      },
    ],
  });
  t.deepEqual(out.messages, [
    { role: 'tool', tool_call_id: 't1', content: 'screenshot:' },
    { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/s.png' } }] },
  ]);
  t.is(warnings.length, 1);
});

test('round trip: a translated tool_use answer, sent back with its tool_result, reaches the upstream with the same id and arguments', (t) => {
  const answer = chatCompletionToMessages(
    {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 0,
      model: 'up',
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'f', arguments: '{"a":[1,2],"b":"x"}' } }],
          },
        },
      ],
    },
    { requestModel: 'm' },
  );
  const { req: out } = messagesToChatRequest({
    ...base,
    messages: [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: answer.content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_9', content: 'done' }] },
    ],
  });
  const call = out.messages[1]!.tool_calls![0]!;
  t.is(call.id, 'call_9');
  t.deepEqual(JSON.parse(call.function.arguments), { a: [1, 2], b: 'x' });
  t.deepEqual(out.messages[2], { role: 'tool', tool_call_id: 'call_9', content: 'done' });
});

test('tools map to function tools with input_schema intact; server tools are dropped with a warning', (t) => {
  const schema = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
  const { req: out, warnings } = messagesToChatRequest(
    req({
      tools: [
        { name: 'weather', description: 'Get weather', input_schema: schema },
        { type: 'custom', name: 'noargs' },
        { type: 'web_search_20250305', name: 'web_search', max_uses: 3 },
      ],
    }),
  );
  t.deepEqual(out.tools, [
    { type: 'function', function: { name: 'weather', description: 'Get weather', parameters: schema } },
    { type: 'function', function: { name: 'noargs', parameters: { type: 'object', properties: {} } } },
  ]);
  t.deepEqual(warnings, ['tools of type "web_search_20250305" dropped: only custom tools have a common-format form (at tools[2])']);
});

test('tool_choice auto/any/none/tool and disable_parallel_tool_use', (t) => {
  const tools = [{ name: 'f', input_schema: { type: 'object' } }];
  const map = (tool_choice: unknown) => {
    const { req: out } = messagesToChatRequest(req({ tools, tool_choice }));
    return [out.tool_choice, out.parallel_tool_calls];
  };
  t.deepEqual(map({ type: 'auto' }), ['auto', undefined]);
  t.deepEqual(map({ type: 'any', disable_parallel_tool_use: true }), ['required', false]);
  t.deepEqual(map({ type: 'none' }), ['none', undefined]);
  t.deepEqual(map({ type: 'tool', name: 'f', disable_parallel_tool_use: false }), [{ type: 'function', function: { name: 'f' } }, undefined]);
});

test('tool_choice without any tool left is dropped with a warning', (t) => {
  const { req: out, warnings } = messagesToChatRequest(req({ tools: [{ type: 'bash_20250124', name: 'bash' }], tool_choice: { type: 'any' } }));
  t.is(out.tools, undefined);
  t.is(out.tool_choice, undefined);
  t.is(warnings.length, 2);
  t.regex(warnings[1]!, /^tool_choice dropped/);
});

test('stream asks the upstream for usage', (t) => {
  const { req: out } = messagesToChatRequest(req({ stream: true }));
  t.true(out.stream);
  t.deepEqual(out.stream_options, { include_usage: true });
  t.false('stream' in messagesToChatRequest(req({ stream: false })).req);
});

test('fields without a common-format meaning are dropped with one warning per kind', (t) => {
  const { req: out, warnings } = messagesToChatRequest({
    ...base,
    top_k: 5,
    thinking: { type: 'enabled', budget_tokens: 2048 },
    context_management: { edits: [] },
    metadata: { user_id: 'u-42', session: 's' },
    output_config: { effort: 'high', format: { type: 'json_schema', schema: { type: 'object' } } },
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'a', cache_control: { type: 'ephemeral' } }] },
      {
        role: 'assistant',
        content: [
          { type: 'redacted_thinking', data: 'xx' },
          { type: 'thinking', thinking: 't', signature: 's' },
          { type: 'text', text: 'b' },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'c', cache_control: { type: 'ephemeral' } }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 't2', signature: 's2' },
          { type: 'text', text: 'd' },
        ],
      },
    ],
  } as MessagesRequest);
  t.is(out.user, 'u-42');
  t.deepEqual(out.response_format, { type: 'json_schema', json_schema: { name: 'output', schema: { type: 'object' } } });
  for (const k of ['top_k', 'thinking', 'context_management', 'metadata', 'output_config']) t.false(k in out, k);
  t.deepEqual(warnings, [
    'cache_control dropped: no common-format equivalent (at messages[0].content[0].cache_control and 1 more)',
    'redacted_thinking blocks dropped: no common-format equivalent (at messages[1].content[0])',
    'thinking blocks dropped: no common-format equivalent (at messages[1].content[1] and 1 more)',
    'metadata.session dropped: no common-format equivalent (at metadata.session)',
    'output_config.effort dropped: no common-format equivalent (at output_config.effort)',
    'top_k dropped: no common-format equivalent (at top_k)',
    'thinking dropped: no common-format equivalent (at thinking)',
    'context_management dropped: no common-format equivalent (at context_management)',
  ]);
});

test('invalid bodies → 400 naming the field', (t) => {
  const msgs = (...messages: unknown[]) => ({ ...base, messages });
  badParam(t, { max_tokens: 1, messages: [] }, 'model');
  badParam(t, { model: 'm', messages: 'hi' }, 'messages');
  badParam(t, { ...req({}), max_tokens: 0 }, 'max_tokens');
  badParam(t, { ...req({}), temperature: '1' }, 'temperature');
  badParam(t, { ...req({}), stop_sequences: 'END' }, 'stop_sequences');
  badParam(t, { ...req({}), system: [{ type: 'image', source: {} }] }, 'system[0].type');
  badParam(
    t,
    msgs({ role: 'user', content: 'a' }, { role: 'assistant', content: 'b' }, { role: 'user', content: [{ type: 'video', url: 'x' }] }),
    'messages[2].content[0].type',
  );
  badParam(t, msgs({ role: 'tool', content: 'x' }), 'messages[0].role');
  badParam(t, msgs({ role: 'user', content: 42 }), 'messages[0].content');
  badParam(t, msgs({ role: 'user', content: ['text'] }), 'messages[0].content[0]');
  badParam(t, msgs({ role: 'user', content: [{ type: 'text' }] }), 'messages[0].content[0].text');
  badParam(t, msgs({ role: 'user', content: [{ type: 'tool_use', id: 'a', name: 'b', input: {} }] }), 'messages[0].content[0].type');
  badParam(t, msgs({ role: 'assistant', content: [{ type: 'tool_result', tool_use_id: 'a' }] }), 'messages[0].content[0].type');
  badParam(t, msgs({ role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'b', input: 'x' }] }), 'messages[0].content[0].input');
  badParam(t, msgs({ role: 'user', content: [{ type: 'tool_result', content: 'x' }] }), 'messages[0].content[0].tool_use_id');
  badParam(t, msgs({ role: 'user', content: [{ type: 'image', source: { type: 'file', file_id: 'f' } }] }), 'messages[0].content[0].source.type');
  badParam(t, msgs({ role: 'user', content: [{ type: 'image', source: { type: 'base64', data: 'x' } }] }), 'messages[0].content[0].source.media_type');
  badParam(t, req({ tools: [{ description: 'no name' }] }), 'tools[0].name');
  badParam(t, req({ tools: [{ name: 'f' }], tool_choice: { type: 'sometimes' } }), 'tool_choice.type');
  badParam(t, req({ tools: [{ name: 'f' }], tool_choice: { type: 'tool' } }), 'tool_choice.name');
  badParam(t, req({ output_config: { format: { type: 'json_object' } } }), 'output_config.format');
});
