import test from 'ava';
import type { ChatCompletionChunk } from '../../lib/common/chat.ts';
import { CommonToResponsesStep } from '../../protocols/openai-responses/from-common-step.ts';
import { encodeResponsesEvent } from '../../protocols/openai-responses/encode-event.ts';
import { ToolNames } from '../../protocols/openai-responses/map-tools.ts';
import { streamFailureEvents } from '../../protocols/openai-responses/stream-failure.ts';
import { responsesToChatRequest } from '../../protocols/openai-responses/to-chat-request.ts';
import type { ResponsesRequest, ResponsesStreamEvent } from '../../protocols/openai-responses/types.ts';
import { violations } from '../helpers/openapi-check.ts';
import { fixture, fixtureJson } from '../helpers/upstream.ts';

/** The `data:` payloads of a recorded common-format stream, `[DONE]` left out. */
function chatChunks(rel: string): ChatCompletionChunk[] {
  return fixture(rel)
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

/** A recorded Responses stream, one event payload per line (vercel/ai `.chunks.txt`). */
function recordedEvents(rel: string): Array<{ type: string; [k: string]: any }> {
  return fixture(rel)
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));
}

function chunk(delta: Record<string, unknown>, finish: string | null = null, extra: Partial<ChatCompletionChunk> = {}): ChatCompletionChunk {
  return { id: 'chatcmpl-x', object: 'chat.completion.chunk', created: 1, model: 'up', choices: [{ index: 0, delta, finish_reason: finish }], ...extra };
}

function run(
  chunks: ChatCompletionChunk[],
  body: ResponsesRequest = { model: 'my-alias', input: 'x', stream: true },
  toolNames = new ToolNames(),
): ResponsesStreamEvent[] {
  const m = new CommonToResponsesStep({ body, requestModel: 'my-alias', toolNames });
  return [...chunks.flatMap((c) => m.push(c)), ...m.end()];
}

function types(events: Array<{ type: string }>): string[] {
  return events.map((e) => e.type);
}

function final(events: ResponsesStreamEvent[]) {
  const last = events.at(-1)!;
  if (last.type !== 'response.completed' && last.type !== 'response.incomplete') throw new Error(`ends with ${last.type}`);
  return last.response;
}

test('sequence numbers count from 0 by one; the SSE frame names the event', (t) => {
  const events = run(chatChunks('openai/vercel-ai/openai-text.sse'));
  t.deepEqual(
    events.map((e) => e.sequence_number),
    events.map((_, i) => i),
  );
  t.is(encodeResponsesEvent(events[0]), `event: response.created\ndata: ${JSON.stringify(events[0])}\n\n`);
});

test('recorded chat text stream → the text event grammar, full text in every done event', (t) => {
  const chunks = chatChunks('openai/vercel-ai/openai-text.sse');
  const text = chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('');
  const events = run(chunks);
  const deltas = events.filter((e) => e.type === 'response.output_text.delta');
  t.deepEqual(types(events), [
    'response.created',
    'response.in_progress',
    'response.output_item.added',
    'response.content_part.added',
    ...deltas.map(() => 'response.output_text.delta'),
    'response.output_text.done',
    'response.content_part.done',
    'response.output_item.done',
    'response.completed',
  ]);
  t.is(deltas.map((e) => (e as { delta: string }).delta).join(''), text);
  const done = events.find((e) => e.type === 'response.output_text.done') as { text: string; item_id: string };
  t.is(done.text, text);
  const res = final(events);
  t.is(res.status, 'completed');
  t.is(res.model, 'my-alias');
  t.deepEqual(res.output, [
    { type: 'message', id: done.item_id, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [], logprobs: [] }] },
  ]);
  const created = events[0] as { response: { id: string; status: string; output: unknown[] } };
  t.is(created.response.id, res.id);
  t.deepEqual([created.response.status, created.response.output], ['in_progress', []]);
});

test("same events as OpenAI's recorded gpt-5.1 function-call stream (vercel/ai issue-19493)", (t) => {
  const recorded = recordedEvents('responses/vercel-ai/issue-19493-gpt-5.1-tool-call.chunks.txt');
  const added = recorded.find((e) => e.type === 'response.output_item.added')!.item;
  const fragments = recorded.filter((e) => e.type === 'response.function_call_arguments.delta').map((e) => e.delta as string);
  const usage = recorded.at(-1)!.response.usage;
  // What a common-format upstream sends for the same answer.
  const chunks = [
    chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: added.call_id, type: 'function', function: { name: added.name, arguments: '' } }] }),
    ...fragments.map((f) => chunk({ tool_calls: [{ index: 0, function: { arguments: f } }] })),
    chunk({}, 'tool_calls'),
    { ...chunk({}), choices: [], usage: { prompt_tokens: usage.input_tokens, completion_tokens: usage.output_tokens, total_tokens: usage.total_tokens } },
  ];
  const body: ResponsesRequest = { model: 'gpt-5.1', input: 'weather in Beijing?', tools: recorded[0].response.tools, tool_choice: 'required', stream: true };
  const { toolNames } = responsesToChatRequest(body);
  const events = run(chunks, body, toolNames);

  t.deepEqual(types(events), types(recorded));
  t.deepEqual(
    events.map((e) => e.sequence_number),
    recorded.map((e) => e.sequence_number),
  );
  events.forEach((e, i) => {
    const want = recorded[i];
    for (const key of Object.keys(want)) if (key !== 'obfuscation') t.true(key in e, `${e.type} has ${key}`);
    if ('item' in want) for (const key of Object.keys(want.item)) t.true(key in (e as { item: object }).item, `${e.type} item has ${key}`);
    if ('delta' in want) t.is((e as { delta: string }).delta, want.delta);
    if ('arguments' in want) t.is((e as { arguments: string }).arguments, want.arguments);
  });
  const item = final(events).output[0];
  t.like(item, { type: 'function_call', status: 'completed', call_id: added.call_id, name: 'get_weather', arguments: '{"city":"Beijing"}' });
  t.deepEqual(final(events).usage, usage);
  t.is(final(events).tool_choice, 'required');
});

test("reasoning_content → a reasoning item with a reasoning_text part, as openai-node's own stream test feeds it", (t) => {
  const sdk = fixture('responses/openai-node/stream.reasoning.sse')
    .split('\n\n')
    .filter((e) => e.startsWith('data: {'))
    .map((e) => JSON.parse(e.slice(6)));
  const events = run([
    chunk({ role: 'assistant', reasoning_content: 'Chain: Step 1. ' }),
    chunk({ reasoning_content: 'Step 2.' }),
    chunk({ content: 'The answer is ' }),
    chunk({ content: '42' }),
    chunk({}, 'stop', { usage: { prompt_tokens: 0, completion_tokens: 6, total_tokens: 6, completion_tokens_details: { reasoning_tokens: 2 } } }),
  ]);
  // gw sends the done events the SDK snapshot omits; every event type of the snapshot appears, in order
  const ours = types(events);
  let at = 0;
  for (const type of types(sdk)) {
    at = ours.indexOf(type, at);
    t.not(at, -1, type);
  }
  t.deepEqual(ours, [
    'response.created',
    'response.in_progress',
    'response.output_item.added',
    'response.content_part.added',
    'response.reasoning_text.delta',
    'response.reasoning_text.delta',
    'response.reasoning_text.done',
    'response.content_part.done',
    'response.output_item.done',
    'response.output_item.added',
    'response.content_part.added',
    'response.output_text.delta',
    'response.output_text.delta',
    'response.output_text.done',
    'response.content_part.done',
    'response.output_item.done',
    'response.completed',
  ]);
  const res = final(events);
  const want = sdk.at(-1).response;
  t.deepEqual(
    res.output.map((o) => ({ ...o, id: undefined })),
    want.output.map((o: object) => ({
      ...o,
      id: undefined,
      ...('role' in o ? { content: [{ type: 'output_text', text: 'The answer is 42', annotations: [], logprobs: [] }] } : {}),
    })),
  );
  t.is(res.usage!.output_tokens_details.reasoning_tokens, 2);
});

test('finish length → response.incomplete with max_output_tokens, the last item incomplete', (t) => {
  const events = run([chunk({ content: 'partial' }), chunk({}, 'length')]);
  const res = final(events);
  t.is(events.at(-1)!.type, 'response.incomplete');
  t.deepEqual([res.status, res.incomplete_details, res.completed_at], ['incomplete', { reason: 'max_output_tokens' }, null]);
  const done = events.find((e) => e.type === 'response.output_item.done') as { item: { status: string } };
  t.is(done.item.status, 'incomplete');
});

test('text then two parallel calls (one a namespaced function): items in order, namespace restored, interleaved fragments kept apart', (t) => {
  const codex = fixtureJson<{ body: ResponsesRequest }>('responses/codex-0.169-request.json').body;
  const { toolNames } = responsesToChatRequest(codex);
  const events = run(
    [
      chunk({ role: 'assistant', content: 'Working.' }),
      chunk({ tool_calls: [{ index: 0, id: 'toolu_a', type: 'function', function: { name: 'exec_command', arguments: '{"cmd":' } }] }),
      chunk({ tool_calls: [{ index: 1, id: 'toolu_b', type: 'function', function: { name: 'multi_agent_v1__spawn_agent', arguments: '{"message":' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"ls"}' } }] }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: '"go"}' } }] }),
      chunk({}, 'tool_calls'),
    ],
    codex,
    toolNames,
  );
  const res = final(events);
  t.deepEqual(
    res.output.map((o) => [o.type, (o as { name?: string }).name, (o as { namespace?: string }).namespace, (o as { arguments?: string }).arguments]),
    [
      ['message', undefined, undefined, undefined],
      ['function_call', 'exec_command', undefined, '{"cmd":"ls"}'],
      ['function_call', 'spawn_agent', 'multi_agent_v1', '{"message":"go"}'],
    ],
  );
  const added = events.filter((e) => e.type === 'response.output_item.added') as Array<{ item: { namespace?: string; name: string } }>;
  t.deepEqual([added[2].item.name, added[2].item.namespace], ['spawn_agent', 'multi_agent_v1']);
  const argDone = events.filter((e) => e.type === 'response.function_call_arguments.done') as Array<{ name: string; output_index: number }>;
  t.deepEqual(
    argDone.map((e) => [e.output_index, e.name]),
    [
      [1, 'exec_command'],
      [2, 'spawn_agent'],
    ],
  );
  // the message item closed before the first call opened
  t.true(types(events).indexOf('response.output_item.done') < types(events).indexOf('response.function_call_arguments.delta'));
});

test('an empty stream still yields a whole empty response; end() and push() after end are no-ops', (t) => {
  const m = new CommonToResponsesStep({ body: { model: 'm' }, requestModel: 'm', toolNames: new ToolNames() });
  const events = m.end();
  t.deepEqual(types(events), ['response.created', 'response.in_progress', 'response.completed']);
  t.deepEqual(m.end(), []);
  t.deepEqual(m.push(chunk({ content: 'late' })), []);

  const early = new CommonToResponsesStep({ body: { model: 'm' }, requestModel: 'm', toolNames: new ToolNames() });
  t.deepEqual(types(early.start()), ['response.created', 'response.in_progress']);
  t.deepEqual(early.start(), []);
  t.deepEqual(early.push(chunk({ content: 'a' }))[0]?.sequence_number, 2, 'numbering goes on after start()');
});

test('a failure after the first byte: error then response.failed, numbered on, shaped like the recorded OpenAI failure', (t) => {
  const recorded = recordedEvents('responses/vercel-ai/openai-error.1.chunks.txt');
  const m = new CommonToResponsesStep({ body: { model: 'm', input: 'x', stream: true }, requestModel: 'm', toolNames: new ToolNames() });
  const before = [...m.push(chunk({ content: 'Hel' })), ...m.push(chunk({ tool_calls: [{ index: 0, id: 'c1', function: { name: 'f', arguments: '{' } }] }))];
  const failed = m.fail({ message: 'upstream stream ended early', status: 502, code: 'upstream_error', type: 'upstream_error' });
  t.deepEqual(types(failed), ['error', 'response.failed']);
  t.deepEqual(
    failed.map((e) => e.sequence_number),
    [before.length, before.length + 1],
  );
  t.is(m.nextSequenceNumber, before.length + 2);
  for (const [i, e] of failed.entries()) {
    const want = recorded[i + 2];
    for (const key of Object.keys(want)) t.true(key in e, `${e.type} has ${key}`);
  }
  const err = failed[0] as { code: string; message: string; error: { message: string } };
  t.deepEqual([err.code, err.message, err.error.message], ['upstream_error', 'upstream stream ended early', 'upstream stream ended early']);
  const res = (failed[1] as { response: { status: string; error: unknown; output: Array<{ type: string }> } }).response;
  t.deepEqual([res.status, res.error], ['failed', { code: 'server_error', message: 'upstream stream ended early' }]);
  t.deepEqual(
    res.output.map((o) => o.type),
    ['message'],
    'the finished message is kept, the unfinished call is not',
  );
  t.deepEqual(m.end(), [], 'nothing after a failure');
  // without a response (a native stream) only the error event
  t.deepEqual(types(streamFailureEvents({ message: 'x', status: 429 }, 7)), ['error']);
});

test('every event conforms to its OpenAPI schema', (t) => {
  const codex = fixtureJson<{ body: ResponsesRequest }>('responses/codex-0.169-request.json').body;
  const { toolNames } = responsesToChatRequest(codex);
  const m = new CommonToResponsesStep({ body: codex, requestModel: 'm', toolNames });
  const events = [
    ...m.push(chunk({ role: 'assistant', reasoning_content: 'hmm' })),
    ...m.push(chunk({ content: 'Hi' })),
    ...m.push(chunk({ refusal: 'no' })),
    ...m.push(chunk({ tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'multi_agent_v1__wait_agent', arguments: '{}' } }] })),
    ...m.push(chunk({}, 'tool_calls', { usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } })),
    ...m.end(),
  ];
  const failing = new CommonToResponsesStep({ body: codex, requestModel: 'm', toolNames });
  events.push(...failing.push(chunk({ content: 'x' })), ...failing.fail({ message: 'boom' }));
  const deviations = new Set(['ResponseStreamEvent.response.user: expected string, got null', 'ResponseStreamEvent.response.usage: expected object, got null']);
  for (const e of events)
    t.deepEqual(
      violations(e, 'ResponseStreamEvent').filter((v) => !deviations.has(v)),
      [],
      e.type,
    );
});
