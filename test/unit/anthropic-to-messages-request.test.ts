import test from 'ava';
import { GatewayError } from '../../core/errors.ts';
import type { ChatRequest } from '../../lib/common/chat.ts';
import { defaultMaxTokens } from '../../protocols/anthropic-messages/model-capabilities.ts';
import { toMessagesRequest } from '../../protocols/anthropic-messages/to-messages-request.ts';

const MODEL = 'claude-sonnet-4-5-20250929';
const req = (over: Partial<ChatRequest>): ChatRequest => ({ model: MODEL, messages: [{ role: 'user', content: 'Hi' }], ...over });

function badRequest(t: import('ava').ExecutionContext, r: ChatRequest, param: string): GatewayError {
  const err = t.throws(() => toMessagesRequest(r), { instanceOf: GatewayError }) as GatewayError;
  t.is(err.status, 400);
  t.is(err.param, param);
  t.true(err.message.includes(param.replace(/\[\d+\]$/, '')), `message names ${param}: ${err.message}`);
  return err;
}

test('a minimal request: model, default max_tokens, messages, nothing else', (t) => {
  const { body, warnings } = toMessagesRequest(req({ stream: true, stream_options: { include_usage: true } }));
  t.deepEqual(body, { model: MODEL, max_tokens: 64000, stream: true, messages: [{ role: 'user', content: 'Hi' }] });
  t.deepEqual(warnings, []);
});

test('system and developer messages are hoisted in order; consecutive user turns merge', (t) => {
  const { body } = toMessagesRequest(
    req({
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'One' },
        { role: 'developer', content: [{ type: 'text', text: 'Answer in French.' }] },
        { role: 'user', content: [{ type: 'text', text: 'Two' }] },
        { role: 'assistant', content: 'Un, deux.' },
        { role: 'user', content: 'Three' },
      ],
    }),
  );
  t.is(body.system, 'You are terse.\n\nAnswer in French.');
  t.deepEqual(body.messages, [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'One' },
        { type: 'text', text: 'Two' },
      ],
    },
    { role: 'assistant', content: [{ type: 'text', text: 'Un, deux.' }] },
    { role: 'user', content: 'Three' },
  ]);
});

test('system parts with cache_control stay blocks and keep it', (t) => {
  const { body } = toMessagesRequest(
    req({
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'Long context', cache_control: { type: 'ephemeral' } }] },
        { role: 'system', content: 'Rules' },
        { role: 'user', content: 'Hi' },
      ],
    }),
  );
  t.deepEqual(body.system, [
    { type: 'text', text: 'Long context', cache_control: { type: 'ephemeral' } },
    { type: 'text', text: 'Rules' },
  ]);
});

test('images: data URI → base64 source, https → url source, jpg normalized; detail warned', (t) => {
  const { body, warnings } = toMessagesRequest(
    req({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Compare' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg', detail: 'high' } },
            { type: 'image_url', image_url: { url: 'data:image/jpg;base64,/9j/4AAQ' } },
          ],
        },
      ],
    }),
  );
  t.deepEqual(body.messages[0].content, [
    { type: 'text', text: 'Compare' },
    { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
    { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
    { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/4AAQ' } },
  ]);
  t.deepEqual(warnings, ['image_url.detail dropped: anthropic has no image detail setting']);
});

test('an image of an unsupported type or form is a 400 naming the part', (t) => {
  badRequest(
    t,
    req({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/bmp;base64,Qk0=' } }] }] }),
    'messages[0].content[0].image_url.url',
  );
  badRequest(
    t,
    req({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png,rawbytes' } }] }] }),
    'messages[0].content[0].image_url.url',
  );
  badRequest(
    t,
    req({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'ftp://host/a.png' } }] }] }),
    'messages[0].content[0].image_url.url',
  );
  badRequest(
    t,
    req({ messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'x', format: 'wav' } }] }] }),
    'messages[0].content[0].type',
  );
});

test('an inline PDF file part becomes a document block', (t) => {
  const { body } = toMessagesRequest(
    req({ messages: [{ role: 'user', content: [{ type: 'file', file: { filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' } }] }] }),
  );
  t.deepEqual(body.messages[0].content, [{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' } }]);
});

test('tools: schema kept intact but $schema, tool_choice and parallel_tool_calls mapped', (t) => {
  const parameters = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: { location: { type: 'string', description: 'City' }, unit: { enum: ['c', 'f'] }, tags: { type: 'array', items: { $ref: '#/$defs/tag' } } },
    required: ['location'],
    additionalProperties: false,
    $defs: { tag: { type: 'string', minLength: 1 } },
  };
  const { body, warnings } = toMessagesRequest(
    req({
      tools: [
        { type: 'function', function: { name: 'get_weather', description: 'Weather now', parameters, strict: true } },
        { type: 'function', function: { name: 'now' } },
      ],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      parallel_tool_calls: false,
    }),
  );
  const { $schema: _dropped, ...intact } = parameters;
  t.deepEqual(body.tools, [
    { name: 'get_weather', description: 'Weather now', input_schema: intact },
    { name: 'now', input_schema: { type: 'object', properties: {} } },
  ]);
  t.deepEqual(body.tool_choice, { type: 'tool', name: 'get_weather', disable_parallel_tool_use: true });
  t.deepEqual(warnings, ['tools[].function.strict dropped: not every anthropic model accepts strict tools']);
});

test('tool_choice strings map to auto/any/none', (t) => {
  const tools: ChatRequest['tools'] = [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }];
  t.is(toMessagesRequest(req({ tools, tool_choice: 'auto' })).body.tool_choice, undefined);
  t.deepEqual(toMessagesRequest(req({ tools, tool_choice: 'auto', parallel_tool_calls: false })).body.tool_choice, {
    type: 'auto',
    disable_parallel_tool_use: true,
  });
  t.deepEqual(toMessagesRequest(req({ tools, parallel_tool_calls: false })).body.tool_choice, { type: 'auto', disable_parallel_tool_use: true });
  t.deepEqual(toMessagesRequest(req({ tools, tool_choice: 'required' })).body.tool_choice, { type: 'any' });
  t.deepEqual(toMessagesRequest(req({ tools, tool_choice: 'none', parallel_tool_calls: false })).body.tool_choice, { type: 'none' });
  const noTools = toMessagesRequest(req({ tool_choice: 'required' }));
  t.is(noTools.body.tool_choice, undefined);
  t.deepEqual(noTools.warnings, ['tool_choice dropped: no tools were given']);
  badRequest(t, req({ tools, tool_choice: 'sometimes' as never }), 'tool_choice');
  badRequest(t, req({ tools: [{ type: 'custom', custom: { name: 'x' } } as never] }), 'tools[0].type');
});

test('assistant tool_calls → tool_use; all tool results of the turn → ONE user message, results first', (t) => {
  const { body, warnings } = toMessagesRequest(
    req({
      messages: [
        { role: 'user', content: 'Weather in Paris and Rome?' },
        {
          role: 'assistant',
          content: null,
          reasoning_content: 'two lookups',
          tool_calls: [
            { id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Paris"}' } },
            { id: 'toolu_2', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Rome"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'toolu_1', content: '18 C' },
        { role: 'tool', tool_call_id: 'toolu_2', content: [{ type: 'text', text: '24 C' }] },
        { role: 'user', content: 'Which is warmer?' },
      ],
    }),
  );
  t.deepEqual(body.messages, [
    { role: 'user', content: 'Weather in Paris and Rome?' },
    {
      role: 'assistant',
      content: [
        { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { location: 'Paris' } },
        { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { location: 'Rome' } },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_1', content: '18 C' },
        { type: 'tool_result', tool_use_id: 'toolu_2', content: [{ type: 'text', text: '24 C' }] },
        { type: 'text', text: 'Which is warmer?' },
      ],
    },
  ]);
  t.deepEqual(warnings, ['messages[].reasoning_content dropped: Anthropic needs the thinking signature to replay reasoning, and the chat format has none']);
});

test('assistant text comes before its tool_use; empty arguments read as {}', (t) => {
  const { body } = toMessagesRequest(
    req({
      messages: [
        { role: 'user', content: 'Refresh' },
        { role: 'assistant', content: 'Refreshing.', tool_calls: [{ id: 'toolu_9', type: 'function', function: { name: 'refresh', arguments: '' } }] },
        { role: 'tool', tool_call_id: 'toolu_9', content: 'ok' },
      ],
    }),
  );
  t.deepEqual(body.messages[1].content, [
    { type: 'text', text: 'Refreshing.' },
    { type: 'tool_use', id: 'toolu_9', name: 'refresh', input: {} },
  ]);
});

test('unparseable tool-call arguments → 400 naming the field path', (t) => {
  const err = badRequest(
    t,
    req({
      messages: [
        { role: 'system', content: 'S' },
        { role: 'user', content: 'A' },
        { role: 'assistant', content: 'B' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'f', arguments: '{"a":' } }] },
      ],
    }),
    'messages[3].tool_calls[0].function.arguments',
  );
  t.is(err.message, 'messages[3].tool_calls[0].function.arguments is not valid JSON (got "{\\"a\\":")');
  // the arguments are the client's: logs and the request log keep the field and the rule only
  t.is(err.logMessage, 'messages[3].tool_calls[0].function.arguments is not valid JSON');
  badRequest(
    t,
    req({ messages: [{ role: 'assistant', tool_calls: [{ id: 'x', type: 'function', function: { name: 'f', arguments: '[1,2]' } }] }] }),
    'messages[0].tool_calls[0].function.arguments',
  );
});

test('other unrepresentable input is a 400 naming the field', (t) => {
  badRequest(t, req({ n: 2 }), 'n');
  badRequest(t, req({ messages: [{ role: 'function', name: 'f', content: 'x' }] }), 'messages[0].role');
  badRequest(t, req({ functions: [{ name: 'f' }] }), 'functions');
  badRequest(t, req({ messages: [{ role: 'tool', content: 'x' }] }), 'messages[0].tool_call_id');
  badRequest(t, req({ response_format: { type: 'json_schema', json_schema: { name: 'x' } } }), 'response_format.json_schema.schema');
  badRequest(t, req({ reasoning_effort: 'extreme' }), 'reasoning_effort');
  badRequest(t, req({ max_tokens: 1.5 }), 'max_tokens');
  t.is(toMessagesRequest(req({ n: 1 })).warnings.length, 0);
});

test('stop → stop_sequences; user → metadata.user_id', (t) => {
  t.deepEqual(toMessagesRequest(req({ stop: 'END' })).body.stop_sequences, ['END']);
  t.deepEqual(toMessagesRequest(req({ stop: ['a', 'b'] })).body.stop_sequences, ['a', 'b']);
  t.is(toMessagesRequest(req({ stop: [] })).body.stop_sequences, undefined);
  t.deepEqual(toMessagesRequest(req({ user: 'user-42' })).body.metadata, { user_id: 'user-42' });
  t.deepEqual(toMessagesRequest(req({ safety_identifier: 'hash-1' })).body.metadata, { user_id: 'hash-1' });
});

test('max_completion_tokens wins over max_tokens; defaults per model family', (t) => {
  t.is(toMessagesRequest(req({ max_completion_tokens: 300, max_tokens: 900 })).body.max_tokens, 300);
  t.is(toMessagesRequest(req({ max_tokens: 900 })).body.max_tokens, 900);
  t.is(toMessagesRequest(req({}), { defaultMaxTokens: 1000 }).body.max_tokens, 1000);
  const table: Array<[string, number]> = [
    ['claude-3-haiku-20240307', 4096],
    ['claude-3-opus-latest', 4096],
    ['claude-3-5-haiku-20241022', 8192],
    ['claude-3-5-sonnet-20241022', 8192],
    ['claude-3-7-sonnet-20250219', 64000],
    ['claude-opus-4-20250514', 32000],
    ['claude-opus-4-1-20250805', 32000],
    ['claude-sonnet-4-20250514', 64000],
    ['claude-haiku-4-5', 64000],
    ['claude-opus-4-5-20251101', 64000],
    ['claude-opus-4-6', 128000],
    ['claude-opus-4-8', 128000],
    ['claude-sonnet-4-6', 64000],
    ['us.anthropic.claude-sonnet-4-5-20250929-v1:0', 64000],
    ['qwen3-max', 4096],
  ];
  for (const [model, expected] of table) t.is(defaultMaxTokens(model), expected, model);
});

test('temperature above 1 is clamped with a warning; top_p and top_k pass', (t) => {
  const { body, warnings } = toMessagesRequest(req({ temperature: 1.4, top_p: 0.9, top_k: 40 }));
  t.deepEqual([body.temperature, body.top_p, body.top_k], [1, 0.9, 40]);
  t.deepEqual(warnings, ['temperature 1.4 clamped to 1 (anthropic range is 0..1)']);
  t.is(toMessagesRequest(req({ temperature: 0.2 })).body.temperature, 0.2);
});

test('OpenAI-only and unknown fields are dropped with a warning each; defaults stay quiet', (t) => {
  const { body, warnings } = toMessagesRequest(
    req({ seed: 7, presence_penalty: 0.5, frequency_penalty: 0.1, logprobs: false, top_logprobs: null, my_custom: 'x' }),
  );
  t.deepEqual(warnings, [
    'seed dropped: anthropic sampling cannot be seeded',
    'presence_penalty dropped: anthropic has no presence penalty',
    'frequency_penalty dropped: anthropic has no frequency penalty',
    'my_custom dropped: not a field anthropic models understand',
  ]);
  t.deepEqual(Object.keys(body).sort(), ['max_tokens', 'messages', 'model']);
});

test('response_format json_schema → output_config.format; json_object → system instruction', (t) => {
  const schema = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: { a: { type: 'integer' } },
    required: ['a'],
    additionalProperties: false,
  };
  const structured = toMessagesRequest(req({ response_format: { type: 'json_schema', json_schema: { name: 'r', schema, strict: true } } }));
  t.deepEqual(structured.body.output_config, {
    format: { type: 'json_schema', schema: { type: 'object', properties: { a: { type: 'integer' } }, required: ['a'], additionalProperties: false } },
  });
  t.deepEqual(structured.warnings, []);

  const old = toMessagesRequest(req({ model: 'claude-3-5-haiku-20241022', response_format: { type: 'json_schema', json_schema: { name: 'r', schema } } }));
  t.is(old.body.output_config, undefined);
  t.is(
    old.body.system,
    `Respond with a single valid JSON object only, with no text before or after it. It must conform to this JSON Schema:\n${JSON.stringify(schema)}`,
  );
  t.deepEqual(old.warnings, ['response_format json_schema: claude-3-5-haiku-20241022 has no structured outputs; asked for the schema in the system prompt']);

  const json = toMessagesRequest(
    req({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'List' },
      ],
      response_format: { type: 'json_object' },
    }),
  );
  t.is(json.body.system, 'Be brief.\n\nRespond with a single valid JSON object only, with no text before or after it.');
  t.deepEqual(json.warnings, ['response_format json_object: anthropic has no JSON mode; asked for JSON in the system prompt']);
  t.deepEqual(toMessagesRequest(req({ response_format: { type: 'text' } })).body.system, undefined);
});

test('reasoning_effort on a budgeted model → thinking enabled below max_tokens; sampling it forbids is dropped', (t) => {
  const { body, warnings } = toMessagesRequest(req({ reasoning_effort: 'medium', temperature: 0.3, top_p: 0.97 }));
  t.deepEqual(body.thinking, { type: 'enabled', budget_tokens: 8192 });
  t.is(body.temperature, undefined);
  t.is(body.top_p, 0.97);
  t.deepEqual(warnings, ['temperature dropped: anthropic models do not accept it with thinking']);

  const small = toMessagesRequest(req({ reasoning_effort: 'high', max_completion_tokens: 3000 }));
  t.deepEqual(small.body.thinking, { type: 'enabled', budget_tokens: 1500 });
  t.deepEqual(small.warnings, ["thinking budget for reasoning_effort 'high' lowered to 1500 to stay below max_tokens 3000"]);

  const tiny = toMessagesRequest(req({ reasoning_effort: 'low', max_tokens: 1000 }));
  t.is(tiny.body.thinking, undefined);
  t.deepEqual(tiny.warnings, ['reasoning_effort dropped: max_tokens 1000 leaves no room for the 1024-token minimum thinking budget']);

  t.is(toMessagesRequest(req({ reasoning_effort: 'none' })).body.thinking, undefined);
  t.deepEqual(toMessagesRequest(req({ reasoning_effort: 'minimal' })).body.thinking, { type: 'enabled', budget_tokens: 1024 });
});

test('reasoning_effort on adaptive models → thinking adaptive + output_config.effort; fixed sampling dropped', (t) => {
  const { body, warnings } = toMessagesRequest(req({ model: 'claude-opus-4-7', reasoning_effort: 'high', temperature: 0.5, top_k: 5 }));
  t.deepEqual(body.thinking, { type: 'adaptive' });
  t.deepEqual(body.output_config, { effort: 'high' });
  t.deepEqual([body.temperature, body.top_k], [undefined, undefined]);
  t.deepEqual(warnings, [
    'temperature dropped: claude-opus-4-7 accepts no sampling parameters',
    'top_k dropped: claude-opus-4-7 accepts no sampling parameters',
  ]);
  const both = toMessagesRequest(
    req({ model: 'claude-sonnet-4-6', reasoning_effort: 'minimal', response_format: { type: 'json_schema', json_schema: { schema: { type: 'object' } } } }),
  );
  t.deepEqual(both.body.output_config, { effort: 'low', format: { type: 'json_schema', schema: { type: 'object' } } });
});

test('reasoning_effort is dropped where thinking cannot run', (t) => {
  const old = toMessagesRequest(req({ model: 'claude-3-5-haiku-20241022', reasoning_effort: 'high' }));
  t.is(old.body.thinking, undefined);
  t.deepEqual(old.warnings, ['reasoning_effort dropped: claude-3-5-haiku-20241022 has no extended thinking']);
  const forced = toMessagesRequest(req({ reasoning_effort: 'high', tools: [{ type: 'function', function: { name: 'f' } }], tool_choice: 'required' }));
  t.is(forced.body.thinking, undefined);
  t.deepEqual(forced.warnings, ['reasoning_effort dropped: anthropic models cannot think while tool_choice forces a tool call']);
});
