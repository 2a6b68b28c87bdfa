import test from 'ava';
import { GatewayError } from '../../core/errors.ts';
import type { ChatMessage } from '../../lib/common/chat.ts';
import { responsesToChatRequest } from '../../protocols/openai-responses/to-chat-request.ts';
import type { ResponsesRequest } from '../../protocols/openai-responses/types.ts';
import { fixtureJson } from '../helpers/upstream.ts';

const codex = fixtureJson<{ body: ResponsesRequest }>('responses/codex-0.169-request.json').body;

function rejects(t: import('ava').ExecutionContext, body: unknown, param: string, message?: RegExp): void {
  const err = t.throws(() => responsesToChatRequest(body as ResponsesRequest), { instanceOf: GatewayError });
  t.is(err?.status, 400);
  t.is(err?.param, param);
  if (message) t.regex(err?.message ?? '', message);
}

test('Codex 0.169 request: developer → system, namespace flattened, web_search dropped, unmapped fields warned', (t) => {
  const { req, warnings, droppedTools, toolNames } = responsesToChatRequest(codex);
  t.is(req.model, 'claude-sonnet-4-6');
  t.deepEqual(
    req.messages.map((m) => m.role),
    ['system', 'system', 'user', 'user'],
  );
  // the second developer message has two input_text parts: joined by a blank line
  const second = req.messages[1].content as string;
  t.true(second.startsWith('<skills_instructions>'));
  t.true(second.includes('\n\n<permissions instructions>'));
  t.is(req.messages[3].content, 'hi');

  const names = req.tools!.map((tool) => tool.function.name);
  t.deepEqual(names, [
    'exec_command',
    'write_stdin',
    'request_user_input',
    'view_image',
    'multi_agent_v1__close_agent',
    'multi_agent_v1__resume_agent',
    'multi_agent_v1__send_input',
    'multi_agent_v1__spawn_agent',
    'multi_agent_v1__wait_agent',
    'get_goal',
    'create_goal',
    'update_goal',
  ]);
  const exec = codex.tools!.find((tool) => (tool as { name?: string }).name === 'exec_command') as { parameters: unknown };
  t.deepEqual(req.tools![0].function.parameters, exec.parameters, 'tool JSON Schema kept intact');
  t.is(req.tools![0].function.strict, false);
  t.deepEqual(toolNames.restore('multi_agent_v1__spawn_agent'), { namespace: 'multi_agent_v1', name: 'spawn_agent' });
  t.deepEqual(toolNames.restore('exec_command'), { name: 'exec_command' });
  t.deepEqual(droppedTools, ['web_search']);

  t.is(req.tool_choice, 'auto');
  t.is(req.parallel_tool_calls, true);
  t.true(req.stream);
  t.deepEqual(req.stream_options, { include_usage: true });
  for (const key of ['store', 'include', 'client_metadata', 'reasoning']) t.false(key in req, key);
  // the prompt cache's routing key is a chat completions field too: Codex's cache keeps working on a translated kind
  t.is(req.prompt_cache_key, codex.prompt_cache_key as string);
  const joined = warnings.join('\n');
  t.false(joined.includes('prompt_cache_key'));
  for (const dropped of ['reasoning.summary', 'include', 'client_metadata', 'tool web_search']) t.true(joined.includes(`${dropped} dropped`), dropped);
  t.false(joined.includes('store'), "store is the route's business, not a loss");
});

test('spec example "Text input": a string input is one user message', (t) => {
  const body = fixtureJson<ResponsesRequest>('responses/spec-examples/text-input.request.json');
  const { req, warnings } = responsesToChatRequest(body);
  t.deepEqual(req, { model: 'gpt-5.4', messages: [{ role: 'user', content: 'Tell me a three sentence bedtime story about a unicorn.' }] });
  t.deepEqual(warnings, []);
});

test('spec example "Functions": function tool and tool_choice', (t) => {
  const body = fixtureJson<ResponsesRequest>('responses/spec-examples/functions.request.json');
  const { req } = responsesToChatRequest(body);
  t.is(req.tool_choice, 'auto');
  t.deepEqual(req.tools, [
    {
      type: 'function',
      function: {
        name: 'get_current_weather',
        description: 'Get the current weather in a given location',
        parameters: (body.tools![0] as { parameters: Record<string, unknown> }).parameters,
      },
    },
  ]);
});

test('spec example "Reasoning": reasoning.effort → reasoning_effort', (t) => {
  const { req } = responsesToChatRequest(fixtureJson<ResponsesRequest>('responses/spec-examples/reasoning.request.json'));
  t.is(req.reasoning_effort, 'high');
});

test('spec example "Image input": input_text + input_image → text and image_url parts', (t) => {
  const body = fixtureJson<ResponsesRequest>('responses/spec-examples/image-input.request.json');
  const { req } = responsesToChatRequest(body);
  t.deepEqual(req.messages, [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'what is in this image?' },
        { type: 'image_url', image_url: { url: (body.input as Array<{ content: Array<{ image_url?: string }> }>)[0].content[1].image_url! } },
      ],
    },
  ]);
});

test('instructions come first; system and developer messages stay in place as system', (t) => {
  const { req } = responsesToChatRequest({
    model: 'm',
    instructions: 'Be brief.',
    input: [
      { role: 'user', content: 'a' },
      { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'dev' }] },
      { role: 'system', content: 'sys' },
    ],
  });
  t.deepEqual(req.messages, [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'a' },
    { role: 'system', content: 'dev' },
    { role: 'system', content: 'sys' },
  ]);
});

test('function_call + function_call_output round trip: one assistant turn with tool_calls, then tool messages answering call_id', (t) => {
  const { req } = responsesToChatRequest({
    model: 'm',
    input: [
      { role: 'user', content: 'weather in Paris and Rome?' },
      { type: 'reasoning', id: 'rs_1', summary: [], content: [{ type: 'reasoning_text', text: 'two cities' }] },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Checking.' }] },
      { type: 'function_call', id: 'fc_1', call_id: 'call_a', name: 'weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call', id: 'fc_2', call_id: 'call_b', name: 'weather', arguments: '{"city":"Rome"}' },
      { type: 'function_call_output', call_id: 'call_a', output: '18C' },
      {
        type: 'function_call_output',
        call_id: 'call_b',
        output: [
          { type: 'input_text', text: '21C' },
          { type: 'input_text', text: 'sunny' },
        ],
      },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Paris 18C, Rome 21C.' }] },
      { role: 'user', content: 'thanks' },
    ],
    tools: [{ type: 'function', name: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }],
  });
  t.deepEqual(req.messages, [
    { role: 'user', content: 'weather in Paris and Rome?' },
    {
      role: 'assistant',
      content: 'Checking.',
      reasoning_content: 'two cities',
      tool_calls: [
        { id: 'call_a', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
        { id: 'call_b', type: 'function', function: { name: 'weather', arguments: '{"city":"Rome"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'call_a', content: '18C' },
    { role: 'tool', tool_call_id: 'call_b', content: '21C\nsunny' },
    { role: 'assistant', content: 'Paris 18C, Rome 21C.' },
    { role: 'user', content: 'thanks' },
  ] satisfies ChatMessage[]);
});

test('a call without text is an assistant message with content null; images in a function output follow as a user message', (t) => {
  const { req, warnings } = responsesToChatRequest({
    model: 'm',
    input: [
      { role: 'user', content: 'look' },
      { type: 'function_call', call_id: 'c1', name: 'view_image', arguments: '{"path":"a.png"}' },
      {
        type: 'function_call_output',
        call_id: 'c1',
        output: [
          { type: 'input_text', text: 'here' },
          { type: 'input_image', image_url: 'data:image/png;base64,AAAA' },
        ],
      },
    ],
  });
  t.deepEqual(req.messages.slice(1), [
    { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'view_image', arguments: '{"path":"a.png"}' } }] },
    { role: 'tool', tool_call_id: 'c1', content: 'here' },
    { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] },
  ]);
  t.true(warnings.some((w) => w.includes('moved to a user message')));
});

test('a namespaced call in the history is sent under its flat name', (t) => {
  const ns = codex.tools!.find((tool) => tool.type === 'namespace')!;
  const { req } = responsesToChatRequest({
    model: 'm',
    tools: [ns],
    input: [
      { role: 'user', content: 'spawn' },
      { type: 'function_call', call_id: 'c9', namespace: 'multi_agent_v1', name: 'spawn_agent', arguments: '{}' },
      { type: 'function_call_output', call_id: 'c9', output: 'ok' },
    ],
  });
  t.is(req.messages[1].tool_calls![0].function.name, 'multi_agent_v1__spawn_agent');
});

test('a flat name longer than 64 characters is shortened with a hash and still restored', (t) => {
  const long = 'n'.repeat(40);
  const { req, toolNames } = responsesToChatRequest({
    model: 'm',
    input: 'x',
    tools: [{ type: 'namespace', name: long, description: 'd', tools: [{ type: 'function', name: 'f'.repeat(40) }] }],
  });
  const flat = req.tools![0].function.name;
  t.is(flat.length, 64);
  t.deepEqual(toolNames.restore(flat), { namespace: long, name: 'f'.repeat(40) });
});

test('reasoning summaries and encrypted content are dropped with a warning, raw reasoning text kept', (t) => {
  const { req, warnings } = responsesToChatRequest({
    model: 'm',
    input: [
      { role: 'user', content: 'q' },
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'sum' }], encrypted_content: 'gAAA' },
      { type: 'message', role: 'assistant', content: 'a' },
      { role: 'user', content: 'q2' },
    ],
  });
  t.deepEqual(req.messages[1], { role: 'assistant', content: 'a' });
  t.true(warnings.some((w) => w.startsWith('reasoning summaries dropped')));
  t.true(warnings.some((w) => w.startsWith('reasoning encrypted_content dropped')));
});

test('built-in tools are dropped and listed; tool_choice forcing one is a 400 naming it', (t) => {
  const tools = [
    { type: 'function', name: 'f' },
    { type: 'web_search_preview' },
    { type: 'file_search', vector_store_ids: ['vs_1'] },
    { type: 'computer_use_preview', display_width: 1, display_height: 1, environment: 'linux' },
    { type: 'code_interpreter', container: { type: 'auto' } },
    { type: 'image_generation' },
    { type: 'local_shell' },
    { type: 'mcp', server_label: 'deepwiki', server_url: 'https://example.invalid/mcp' },
    { type: 'custom', name: 'apply_patch' },
  ];
  const { req, droppedTools } = responsesToChatRequest({ model: 'm', input: 'x', tools });
  t.deepEqual(
    req.tools!.map((tool) => tool.function.name),
    ['f'],
  );
  t.deepEqual(droppedTools, [
    'web_search_preview',
    'file_search',
    'computer_use_preview',
    'code_interpreter',
    'image_generation',
    'local_shell',
    'mcp:deepwiki',
    'custom:apply_patch',
  ]);

  rejects(t, { model: 'm', input: 'x', tools, tool_choice: { type: 'web_search_preview' } }, 'tool_choice', /web_search_preview/);
  rejects(t, { model: 'm', input: 'x', tools, tool_choice: { type: 'file_search' } }, 'tool_choice', /file_search/);
  rejects(t, { model: 'm', input: 'x', tools, tool_choice: { type: 'mcp', server_label: 'deepwiki' } }, 'tool_choice', /mcp:deepwiki/);
  rejects(t, { model: 'm', input: 'x', tools, tool_choice: { type: 'custom', name: 'apply_patch' } }, 'tool_choice', /custom:apply_patch/);
  rejects(t, { model: 'm', input: 'x', tools, tool_choice: { type: 'function', name: 'apply_patch' } }, 'tool_choice', /custom:apply_patch/);
  rejects(t, { model: 'm', input: 'x', tools: [{ type: 'web_search' }], tool_choice: 'required' }, 'tool_choice', /web_search/);
  rejects(t, { model: 'm', input: 'x', tools, tool_choice: { type: 'function', name: 'nope' } }, 'tool_choice.name', /nope/);
});

test('tool_choice: a named function (namespaced too), and a choice with no tools left is dropped', (t) => {
  const ns = { type: 'namespace', name: 'crm', description: 'd', tools: [{ type: 'function', name: 'lookup' }] };
  t.deepEqual(
    responsesToChatRequest({ model: 'm', input: 'x', tools: [ns], tool_choice: { type: 'function', name: 'lookup', namespace: 'crm' } }).req.tool_choice,
    { type: 'function', function: { name: 'crm__lookup' } },
  );
  t.deepEqual(responsesToChatRequest({ model: 'm', input: 'x', tools: [ns], tool_choice: { type: 'function', name: 'crm__lookup' } }).req.tool_choice, {
    type: 'function',
    function: { name: 'crm__lookup' },
  });
  const r = responsesToChatRequest({ model: 'm', input: 'x', tools: [{ type: 'web_search' }], tool_choice: 'auto', parallel_tool_calls: false });
  t.false('tool_choice' in r.req);
  t.false('parallel_tool_calls' in r.req);
  t.false('tools' in r.req);
  t.true(r.warnings.some((w) => w.startsWith('tool_choice dropped')));
});

test('tool_choice allowed_tools narrows the tools; required over dropped tools only is a 400', (t) => {
  const tools = [{ type: 'function', name: 'a' }, { type: 'function', name: 'b' }, { type: 'web_search' }];
  const { req } = responsesToChatRequest({
    model: 'm',
    input: 'x',
    tools,
    tool_choice: { type: 'allowed_tools', mode: 'required', tools: [{ type: 'function', name: 'b' }, { type: 'web_search' }] },
  });
  t.is(req.tool_choice, 'required');
  t.deepEqual(
    req.tools!.map((tool) => tool.function.name),
    ['b'],
  );
  rejects(
    t,
    { model: 'm', input: 'x', tools, tool_choice: { type: 'allowed_tools', mode: 'required', tools: [{ type: 'web_search' }] } },
    'tool_choice',
    /web_search/,
  );
});

test('sampling, limits, text.format, user and metadata', (t) => {
  const { req, warnings } = responsesToChatRequest({
    model: 'm',
    input: 'x',
    max_output_tokens: 300,
    temperature: 0.2,
    top_p: 0.9,
    user: 'u1',
    metadata: { a: 'b' },
    text: { format: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true }, verbosity: 'low' },
  });
  t.is(req.max_tokens, 300);
  t.is(req.temperature, 0.2);
  t.is(req.top_p, 0.9);
  t.is(req.user, 'u1');
  t.deepEqual(req.metadata, { a: 'b' });
  t.deepEqual(req.response_format, { type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'object' }, strict: true } });
  t.true(warnings.some((w) => w.startsWith('text.verbosity dropped')));
  t.deepEqual(responsesToChatRequest({ model: 'm', input: 'x', text: { format: { type: 'json_object' } } }).req.response_format, { type: 'json_object' });
  t.false('response_format' in responsesToChatRequest({ model: 'm', input: 'x', text: { format: { type: 'text' } } }).req);
});

test('invalid shapes → 400 naming the field', (t) => {
  rejects(t, { input: 'x' }, 'model');
  rejects(t, { model: 'm' }, 'input');
  rejects(t, { model: 'm', input: 'x', max_output_tokens: 0 }, 'max_output_tokens');
  rejects(t, { model: 'm', input: 'x', temperature: 'hot' }, 'temperature');
  rejects(t, { model: 'm', input: [{ role: 'user', content: [{ type: 'input_audio' }] }] }, 'input[0].content[0].type');
  rejects(t, { model: 'm', input: [{ role: 'user', content: [{ type: 'input_file', file_url: 'https://x.invalid/a.pdf' }] }] }, 'input[0].content[0].file_url');
  rejects(t, { model: 'm', input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file_1' }] }] }, 'input[0].content[0].file_id');
  rejects(t, { model: 'm', input: [{ role: 'tool', content: 'x' }] }, 'input[0].role');
  rejects(
    t,
    {
      model: 'm',
      input: [
        { role: 'user', content: 'x' },
        { type: 'function_call_output', call_id: 'ghost', output: 'x' },
      ],
    },
    'input[1].call_id',
    /ghost/,
  );
  rejects(t, { model: 'm', input: [{ type: 'item_reference', id: 'msg_1' }] }, 'input[0].type');
  rejects(t, { model: 'm', input: 'x', background: true }, 'background');
  rejects(t, { model: 'm', input: 'x', text: { format: { type: 'json_schema', name: 'n' } } }, 'text.format.schema');
  rejects(
    t,
    {
      model: 'm',
      input: 'x',
      tools: [
        { type: 'function', name: 'a' },
        { type: 'function', name: 'a' },
      ],
    },
    'tools[1]',
  );
});

test('outputs of dropped built-in calls are dropped with their calls, not a 400', (t) => {
  const { req, warnings } = responsesToChatRequest({
    model: 'm',
    input: [
      { role: 'user', content: 'ls' },
      { type: 'local_shell_call', id: 'lsh_1', call_id: 'c1', status: 'completed', action: { type: 'exec', command: ['ls'] } },
      { type: 'function_call_output', call_id: 'c1', output: 'a.txt' },
      { role: 'user', content: 'and?' },
    ],
  });
  t.deepEqual(req.messages, [
    { role: 'user', content: 'ls' },
    { role: 'user', content: 'and?' },
  ]);
  t.true(warnings.some((w) => w.startsWith('input items of type local_shell_call dropped')));
});
