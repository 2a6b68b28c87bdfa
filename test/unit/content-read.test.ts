/**
 * The content view reads every recorded request, answer and stream (test/fixtures/, each
 * through its protocol's reader) as otel read them from the wire: the GenAI messages otel
 * builds from the view (plugins/extensions/otel/content.ts) equal what the wire readers otel
 * had before the view made of the same fixture (test/helpers/otel-wire-reference.ts), and so
 * do the id, model, finish reasons and sampling parameters. Where the view says more than
 * those readers, on purpose, the comparison leaves it out (`comparable`):
 * reasoning and refusals are parts of their own (today dropped, named by type, or read as
 * text, by protocol); a Gemini call's wire `id` (today none); a Gemini media part's kind
 * (today `blob`). Then the parts each fixture holds are checked by value: roles, texts, tool
 * calls with their arguments, tool results, finish reasons; streams against themselves
 * (deltas add up to what the `*.done` events and the final response repeat).
 */
import test, { type ExecutionContext } from 'ava';
import { Edits } from '../../lib/content/parts.ts';
import type { AnswerContent, EventContent, Part, RequestContent, TextPart, ToolCallPart, ToolResultPart } from '../../lib/content/types.ts';
import { answerContent, type ContentReader, eventContent, requestContent } from '../../lib/content/view.ts';
import { inputContent, type Message as GenaiMessage, type Part as GenaiPart, outputContent, StreamText } from '../../plugins/extensions/otel/content.ts';
import { ResponseFacts, requestAttributes } from '../../plugins/extensions/otel/genai.ts';
import { ReferenceFacts, ReferenceStreamText, referenceInput, referenceOutput, referenceSampling } from '../helpers/otel-wire-reference.ts';
import { type ContentCase, contentCases, READERS, type StreamEvent } from '../helpers/content-fixtures.ts';
import { requestContext } from '../helpers/request-context.ts';

/** No text is cut: the view is compared, not otel's bounds (test/unit/otel-bounds.test.ts). */
const UNBOUNDED = 100_000_000;

const { cases, unread } = contentCases();
const byName = new Map(cases.map((c) => [c.name, c]));
const readOnly = () => new Edits(false);

function request(name: string): RequestContent {
  const c = byName.get(name);
  if (c?.kind !== 'request') throw new Error(`no request fixture ${name}`);
  return requestContent(READERS[c.protocol], c.body, readOnly());
}

function answer(name: string): AnswerContent {
  const c = byName.get(name);
  if (c?.kind !== 'answer') throw new Error(`no answer fixture ${name}`);
  return answerContent(READERS[c.protocol], c.body, readOnly());
}

function stream(name: string): EventContent[] {
  const c = byName.get(name);
  if (c?.kind !== 'stream') throw new Error(`no stream fixture ${name}`);
  return c.events.map((e) => eventContent(READERS[c.protocol], e.value, readOnly()));
}

/** What the view adds to today's otel output, left out of both sides (see the header). */
const ADDED = new Set(['reasoning', 'refusal', 'thinking']);
const GEMINI_MEDIA = new Set(['inlineData', 'fileData', 'executableCode', 'codeExecutionResult', 'unknown']);

function comparable(messages: GenaiMessage[], protocol: string): GenaiMessage[] {
  const out: GenaiMessage[] = [];
  for (const m of messages) {
    const parts = comparableParts(m.parts, protocol);
    if (parts.length === 0 && m.parts.length > 0) continue;
    out.push({ ...m, parts });
  }
  return out;
}

function comparableParts(parts: GenaiPart[], protocol: string): GenaiPart[] {
  return parts
    .filter((p) => !ADDED.has(p.type))
    .map((p) => {
      if (protocol !== 'gemini') return p;
      if (p.type === 'tool_call' || p.type === 'tool_call_response') {
        const { id: _id, ...rest } = p;
        return rest;
      }
      return GEMINI_MEDIA.has(p.type) ? { type: 'blob' } : p;
    });
}

/** A Gemini body without thought parts: today's otel reads them as text. */
function withoutThoughts(protocol: string, body: Record<string, unknown>): Record<string, unknown> {
  if (protocol !== 'gemini') return body;
  const copy = structuredClone(body);
  const strip = (content: unknown) => {
    const c = content as { parts?: Array<{ thought?: boolean }> } | undefined;
    if (Array.isArray(c?.parts)) c.parts = c.parts.filter((p) => p?.thought !== true);
  };
  for (const content of (copy.contents as unknown[] | undefined) ?? []) strip(content);
  for (const candidate of (copy.candidates as Array<{ content?: unknown }> | undefined) ?? []) strip(candidate.content);
  return copy;
}

// ---- every fixture, compared with today's otel ----

test('every fixture under test/fixtures is read, or named as holding no content', (t) => {
  t.deepEqual(unread, []);
  const kinds = (protocol: string, kind: string) => cases.filter((c) => c.protocol === protocol && c.kind === kind).length;
  for (const protocol of Object.keys(READERS)) for (const kind of ['request', 'answer', 'stream']) t.true(kinds(protocol, kind) > 0, `${protocol} ${kind}s`);
});

for (const c of cases) {
  test(`${c.name} (${c.protocol} ${c.kind}): the GenAI messages and facts otel records`, (t) => {
    const reader = READERS[c.protocol];
    if (c.kind === 'request') compareRequest(t, reader, c);
    else if (c.kind === 'answer') compareAnswer(t, reader, c);
    else compareStream(t, reader, c);
  });
}

type T = ExecutionContext;

function compareRequest(t: T, reader: ContentReader, c: Extract<ContentCase, { kind: 'request' }>): void {
  const view = requestContent(reader, c.body, readOnly());
  const today = referenceInput(c.protocol, withoutThoughts(c.protocol, c.body), UNBOUNDED);
  const built = inputContent(view, UNBOUNDED);
  t.deepEqual(comparable(built.messages.value, c.protocol), comparable(today.messages.value, c.protocol), 'messages');
  t.deepEqual(built.system && comparableParts(built.system.value, c.protocol), today.system && comparableParts(today.system.value, c.protocol), 'system');
  t.true(
    view.texts().every((p) => p.type !== 'reasoning' && typeof p.text === 'string'),
    'texts: strings, no reasoning',
  );

  // the sampling parameters otel records, read from the view, as the wire readers read them
  const attrs = requestAttributes(requestContext('m', c.body, c.protocol));
  const expected = Object.fromEntries(Object.entries(referenceSampling(c.protocol, c.body)).map(([k, v]) => [`gen_ai.request.${k}`, v]));
  const recorded = Object.fromEntries(Object.entries(attrs).filter(([k]) => k in SAMPLING));
  t.deepEqual(recorded, expected, 'sampling parameters');
}

const SAMPLING: Record<string, true> = Object.fromEntries(
  ['temperature', 'top_p', 'top_k', 'seed', 'frequency_penalty', 'presence_penalty', 'stop_sequences'].map((k) => [`gen_ai.request.${k}`, true]),
);

function compareAnswer(t: T, reader: ContentReader, c: Extract<ContentCase, { kind: 'answer' }>): void {
  const view = answerContent(reader, c.body, readOnly());
  const today = referenceOutput(c.protocol, withoutThoughts(c.protocol, c.body), UNBOUNDED);
  t.deepEqual(comparable(outputContent(view, UNBOUNDED).value, c.protocol), comparable(today.value, c.protocol), 'messages');
  const facts = new ResponseFacts();
  facts.answer(view);
  const wire = new ReferenceFacts();
  wire.body(c.protocol, c.body);
  t.deepEqual({ id: facts.id, model: facts.model, finishReasons: facts.finishReasons }, { id: wire.id, model: wire.model, finishReasons: wire.finishReasons });
  t.true(
    view.texts().every((p) => typeof p.text === 'string'),
    'texts',
  );
}

function compareStream(t: T, reader: ContentReader, c: Extract<ContentCase, { kind: 'stream' }>): void {
  const today = new ReferenceStreamText(UNBOUNDED);
  const wire = new ReferenceFacts();
  const text = new StreamText(UNBOUNDED);
  const facts = new ResponseFacts();
  for (const event of c.events) {
    today.chunk(c.protocol, withoutThoughts(c.protocol, event.value));
    wire.chunk(c.protocol, event.value);
    const view = eventContent(reader, event.value, readOnly());
    text.event(view);
    facts.event(view);
    // the hint may let an event through unparsed only when it carries no finish reason
    if (view.finish.length > 0 && reader.finishHint) t.regex(event.data, reader.finishHint, 'finishHint passes an event with a finish reason');
  }
  t.deepEqual(text.message(undefined), today.message(undefined), 'the stream text otel collects');
  t.deepEqual({ id: facts.id, model: facts.model, finishReasons: facts.finishReasons }, { id: wire.id, model: wire.model, finishReasons: wire.finishReasons });
}

// ---- what each fixture holds, by value ----

const roles = (view: RequestContent) => view.messages.map((m) => m.role);
const partsOf = <P extends Part['type']>(view: RequestContent | AnswerContent, type: P): Array<Extract<Part, { type: P }>> => {
  const messages = 'messages' in view ? view.messages : view.choices.map((c) => c.message);
  return messages.flatMap((m) => m.parts.filter((p): p is Extract<Part, { type: P }> => p.type === type));
};
const texts = (parts: readonly { text: string }[]) => parts.map((p) => p.text);

test('Claude Code, its second turn (Messages): system blocks, the Read call and the file it read, twelve tools; no id, name or model is text', (t) => {
  const view = request('anthropic/claude-code/read-file-turn.1.request.json');
  t.is(view.instructions.length, 3);
  t.regex(view.instructions[1]!.text, /Claude Agent SDK/);
  t.deepEqual(roles(view), ['user', 'assistant', 'user']);
  const [call] = partsOf(view, 'tool_call') as ToolCallPart[];
  t.like(call, { id: 'toolu_rec_1', name: 'Read' });
  t.regex(JSON.parse(call!.arguments).file_path, /\/notes\.txt$/);
  t.deepEqual(texts(call!.argumentTexts()), [JSON.parse(call!.arguments).file_path]);
  const [result] = partsOf(view, 'tool_result') as ToolResultPart[];
  t.is(result!.id, 'toolu_rec_1');
  t.regex(result!.texts()[0]!.text, /^\s*1\tremember the milk\n/);
  t.deepEqual(
    view.tools.map((tool) => tool.name),
    ['Agent', 'Bash', 'Edit', 'ListAgents', 'Read', 'ReportFindings', 'ScheduleWakeup', 'Skill', 'ToolSearch', 'Workflow', 'DeferredToolPlaceholder', 'Write'],
  );
  t.true(view.tools.every((tool) => tool.description !== undefined && typeof tool.parameters === 'object'));
  // 3 instructions, 9 user text blocks, 1 argument string, 1 result, 12 descriptions
  t.is(view.texts().length, 26);
  const all = new Set(texts(view.texts()));
  for (const label of ['toolu_rec_1', 'Read', 'claude-sonnet-4-5-20250929', 'user', 'text', 'tool_use', 'file_path']) t.false(all.has(label), label);
  t.deepEqual(view.params, { temperature: undefined, topP: undefined, topK: undefined, stop: undefined });
});

test('Codex, its second turn (Responses): developer and user messages, reasoning kept out of texts(), the exec_command call and its output, namespace tools', (t) => {
  const view = request('responses/codex/exec-turn.1.request.json');
  t.deepEqual(view.instructions, []);
  t.deepEqual(roles(view), ['developer', 'developer', 'user', 'user', 'assistant', 'assistant', 'tool']);
  const [reasoning] = partsOf(view, 'reasoning') as TextPart[];
  t.is(reasoning!.text, 'I should read the file.');
  t.false(view.texts().includes(reasoning!), 'reasoning of earlier turns is not request text');
  const [call] = partsOf(view, 'tool_call') as ToolCallPart[];
  t.like(call, { id: 'call_rec_1', name: 'exec_command' });
  t.deepEqual(texts(call!.argumentTexts()), ['printf "remember the milk\\n"']);
  const [result] = partsOf(view, 'tool_result') as ToolResultPart[];
  t.is(result!.id, 'call_rec_1');
  t.regex(result!.output, /Output:\nremember the milk\n/);
  const names = view.tools.map((tool) => tool.name);
  t.deepEqual(names.slice(names.indexOf('multi_agent_v1'), names.indexOf('multi_agent_v1') + 3), ['multi_agent_v1', 'close_agent', 'resume_agent']);
  t.false(names.includes('web_search'), 'a built-in tool has no name to list');
});

test('Gemini CLI, its second turn: the CLI-minted call id on the call and on its response, args and response objects by their string values, generationConfig', (t) => {
  const view = request('gemini/gemini-cli/read-file-turn.1.request.json');
  t.deepEqual(roles(view), ['user', 'assistant', 'user']);
  const [call] = partsOf(view, 'tool_call') as ToolCallPart[];
  t.like(call, { name: 'read_file', arguments: '{"file_path":"hello.txt"}' });
  t.regex(call!.id!, /^read_file_\d+_0$/);
  t.deepEqual(texts(call!.argumentTexts()), ['hello.txt']);
  const [result] = partsOf(view, 'tool_result') as ToolResultPart[];
  t.is(result!.id, call!.id);
  t.deepEqual(texts(result!.texts()), ['greetings from a file\n']);
  t.like(view.params, { temperature: 1, topP: 0.95, topK: 64 });
  t.is(view.instructions.length, 1);
});

test('chat history with reasoning_content, a tool call and a tool message (Zhipu): each a part, the tool result by its call id', (t) => {
  const view = request('zhipu/fantasy-cassettes/glm-4.7-flash.tool.transcript.json#1 request');
  t.deepEqual(roles(view), ['system', 'user', 'assistant', 'tool']);
  t.deepEqual(
    view.messages[2]!.parts.map((p) => p.type),
    ['reasoning', 'text', 'tool_call'],
  );
  const [result] = partsOf(view, 'tool_result') as ToolResultPart[];
  t.like(result, { id: 'call_-7807249954186984837', output: '40 C' });
  t.deepEqual(texts(view.texts()), [
    'You are a helpful assistant',
    "What's the weather in Florence,Italy?",
    "I'll check the weather in Florence, Italy for you.",
    'Florence,Italy',
    '40 C',
    'Get weather information for a location',
  ]);
});

test('media parts are opaque: an image URL and inline data are never text', (t) => {
  const chat = request('openai/spec-examples/chat.image-input.request.json');
  t.deepEqual(
    chat.messages[0]!.parts.map((p) => (p.type === 'opaque' ? p.kind : p.type)),
    ['text', 'image_url'],
  );
  const responses = request('responses/spec-examples/image-input.request.json');
  t.deepEqual(
    responses.messages[0]!.parts.map((p) => (p.type === 'opaque' ? p.kind : p.type)),
    ['text', 'input_image'],
  );
  const gemini = request('gemini/fantasy-requests/gemini-2.5-pro.image_upload.0.request.json');
  t.true(gemini.messages[0]!.parts.some((p) => p.type === 'opaque' && p.kind === 'inlineData'));
  for (const view of [chat, responses, gemini]) t.true(view.texts().every((p) => !/^(https?:|data:)/.test(p.text) && p.text.length < 10_000));
});

test('answers: thinking, a tool call by its string values, a refusal, reasoning_content, a Gemini call, a Responses reasoning item, with their finish reasons', (t) => {
  const thinking = answer('anthropic/vercel-ai/anthropic-clear-thinking.1.json');
  t.deepEqual(
    thinking.choices[0]!.message.parts.map((p) => p.type),
    ['reasoning', 'text'],
  );
  t.deepEqual(thinking.choices[0]!.finish, { reason: 'stop', native: 'end_turn' });
  t.deepEqual(texts(thinking.texts()), ['925 divided by 5 = 185', '925 ÷ 5 = 185']);

  const json = answer('anthropic/vercel-ai/anthropic-json-tool.1.json');
  const [call] = partsOf(json, 'tool_call') as ToolCallPart[];
  t.is(call!.name, 'json');
  t.deepEqual(call!.argumentTexts().length, 8, 'the locations and conditions, not the temperatures');
  t.deepEqual(json.choices[0]!.finish, { reason: 'tool_calls', native: 'tool_use' });

  t.deepEqual(answer('anthropic/vercel-ai/anthropic-refusal.json').choices[0]!.finish, { reason: 'content_filter', native: 'refusal' });

  const zhipu = answer('zhipu/fantasy-cassettes/glm-4.7-flash.tool.transcript.json#0 answer');
  t.deepEqual(
    zhipu.choices[0]!.message.parts.map((p) => p.type),
    ['reasoning', 'text', 'tool_call'],
  );
  t.deepEqual(zhipu.choices[0]!.finish, { reason: 'tool_calls', native: 'tool_calls' });
  t.deepEqual(zhipu.id, '202603130503035652f6eb725d4b48');

  const gemini = answer('gemini/vercel-ai/google-tool-call.json');
  t.like(partsOf(gemini, 'tool_call')[0], { id: undefined, name: 'weather', arguments: '{"location":"San Francisco"}' });
  t.deepEqual(gemini.choices[0]!.finish, { reason: 'tool_calls', native: 'STOP' });

  const responses = answer('responses/vercel-ai/openai-reasoning-encrypted-content.1.json');
  t.deepEqual(
    responses.choices[0]!.message.parts.map((p) => p.type),
    ['reasoning', 'text'],
  );
  t.deepEqual(responses.choices[0]!.finish, { reason: 'stop', native: 'completed' });
  t.is(responses.model, 'gpt-5-mini-2025-08-07');
});

/** The tool-argument pieces of a stream, joined per answer (a fixture may hold several streams), choice and call. */
function argumentsByCall(events: EventContent[]): Map<string, string> {
  const out = new Map<string, string>();
  let answer: string | undefined;
  for (const event of events) {
    answer = event.id ?? answer;
    for (const d of event.deltas) {
      if (d.type !== 'tool_arguments') continue;
      const key = answer === undefined ? `${d.index}.${d.call}` : `${answer} ${d.index}.${d.call}`;
      out.set(key, (out.get(key) ?? '') + d.text);
    }
  }
  return out;
}

const deltaText = (events: EventContent[], type: string) =>
  events
    .flatMap((e) => e.deltas)
    .filter((d) => d.type === type)
    .map((d) => d.text)
    .join('');

test('streams: tool-argument pieces join into each call’s JSON (Chat with the id and name on the first piece, Messages after a content_block_start that names the call)', (t) => {
  const chat = stream('openai/vercel-ai/chat.stream.tool-call-deltas.sse');
  const first = chat.flatMap((e) => e.deltas).find((d) => d.type === 'tool_arguments');
  t.like(first, { id: 'call_O17Uplv4lJvD6DVdIvFFeRMw', name: 'test-tool', call: 0 });
  t.deepEqual([...argumentsByCall(chat).values()], ['{"value":"Sparkle Day"}']);
  t.deepEqual(
    chat.flatMap((e) => e.finish),
    [{ index: 0, reason: 'tool_calls', native: 'tool_calls' }],
  );

  const messages = stream('anthropic/anthropic-sdk-typescript/tool_use.sse');
  t.like(messages.flatMap((e) => e.toolCalls)[0], { id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn', name: 'get_weather', arguments: '{}' });
  t.deepEqual([...argumentsByCall(messages)], [['msg_019Q1hrJbZG26Fb9BQhrkHEr 0.1', '{"location": "Paris"}']]);
  t.is(deltaText(messages, 'text'), "I'll check the current weather in Paris for you.");

  // every chat, Messages and Responses stream: what the pieces of a call add up to is JSON (none at all: a call without arguments)
  for (const c of cases)
    if (c.kind === 'stream' && c.protocol !== 'gemini')
      for (const [call, text] of argumentsByCall(stream(c.name))) if (text !== '') t.notThrows(() => JSON.parse(text), `${c.name} call ${call}`);
});

test('streams: refusal and reasoning deltas (Chat), thinking deltas (Messages), Gemini calls whole and by streamed string arguments', (t) => {
  t.is(deltaText(stream('openai/openai-node/chat.stream.refusal.sse'), 'refusal'), "I'm very sorry, but I can't assist with that request.");
  const zhipu = stream('zhipu/fantasy-cassettes/glm-4.7-flash.thinking-streaming.0.response.sse');
  t.true(deltaText(zhipu, 'reasoning').length > 20);
  t.true(deltaText(zhipu, 'text').length > 0);
  t.is(
    deltaText(stream('anthropic/vercel-ai/anthropic-clear-thinking.1.sse'), 'reasoning'),
    'The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185',
  );

  const gemini = stream('gemini/vercel-ai/google-tool-call.sse');
  const [call] = gemini.flatMap((e) => e.toolCalls);
  t.like(call, { name: 'weather', arguments: '{"location":"San Francisco"}' });
  t.deepEqual(texts(call!.argumentTexts()), ['San Francisco']);
  const streamed = stream('gemini/vercel-ai/google-stream-tool-call-arguments.sse');
  t.deepEqual(
    streamed.flatMap((e) => e.toolCalls),
    [],
    'a call whose arguments continue is not whole',
  );
  t.deepEqual(texts(streamed.flatMap((e) => e.deltas)), ['Boston', '', 'San Francisco', '']);
});

test('Responses streams: what the deltas add up to is what the *.done events, the output items and response.completed repeat', (t) => {
  for (const c of cases) {
    if (c.kind !== 'stream' || c.protocol !== 'openai-responses') continue;
    const events = stream(c.name);
    const of = (type: string) => c.events.map((e, i) => [e, events[i]!] as const).filter(([e]) => e.value.type === type);
    const repeated = (type: string, kind: 'text' | 'reasoning' | 'tool_call') =>
      of(type).flatMap(([, view]) => view.repeated.filter((p) => p.type === kind).map((p) => (p.type === 'tool_call' ? p.arguments : p.text)));
    const completedOutput = (kind: 'text' | 'reasoning' | 'tool_call') => repeated('response.completed', kind).join('');
    const text = deltaText(events, 'text');
    const args = [...argumentsByCall(events).values()].join('');
    const same = (type: string, kind: 'text' | 'tool_call', expected: string) => {
      if (of(type).length > 0) t.is(repeated(type, kind).join(''), expected, `${c.name}: ${type} ${kind}`);
    };
    same('response.output_text.done', 'text', text);
    same('response.content_part.done', 'text', text);
    same('response.output_item.done', 'text', text);
    same('response.function_call_arguments.done', 'tool_call', args);
    same('response.output_item.done', 'tool_call', args);
    if (of('response.completed').length > 0) {
      t.is(completedOutput('text'), text, `${c.name}: response.completed text`);
      t.is(completedOutput('tool_call'), args, `${c.name}: response.completed calls`);
      t.is(completedOutput('reasoning'), deltaText(events, 'reasoning'), `${c.name}: response.completed reasoning`);
    }
  }
  const reasoning = stream('responses/openai-node/stream.reasoning.sse');
  t.is(deltaText(reasoning, 'reasoning'), 'Chain: Step 1. Step 2.');
  t.is(deltaText(reasoning, 'text'), 'The answer is 42');
});

test('each field is read on first use, once: params never walk the messages, an answer’s finish builds no part, an event’s id reads no delta', (t) => {
  const calls: string[] = [];
  const counted = (reader: ContentReader): ContentReader =>
    Object.fromEntries(
      Object.entries(reader).map(([key, value]) => [
        key,
        typeof value === 'function'
          ? (...args: unknown[]) => {
              calls.push(key);
              return value(...args);
            }
          : value,
      ]),
    ) as unknown as ContentReader;
  const chat = counted(READERS['openai-chat']);
  const body = (byName.get('zhipu/fantasy-cassettes/glm-4.7-flash.tool.transcript.json#1 request') as { body: Record<string, unknown> }).body;
  const req = requestContent(chat, body, readOnly());
  t.deepEqual(calls, []);
  req.params;
  req.params;
  t.deepEqual(calls, ['params']);
  req.texts();
  req.texts();
  t.deepEqual(calls, ['params', 'instructions', 'messages', 'tools']);

  calls.length = 0;
  const res = answerContent(chat, (byName.get('zhipu/fantasy-cassettes/glm-4.7-flash.tool.transcript.json#0 answer') as { body: unknown }).body, readOnly());
  t.is(res.choices[0]!.finish?.native, 'tool_calls');
  t.deepEqual(calls, ['answer']);
  res.choices[0]!.message;
  res.texts();
  t.deepEqual(calls, ['answer', 'answerMessages']);

  calls.length = 0;
  const events = (byName.get('openai/vercel-ai/openai-text.sse') as { events: StreamEvent[] }).events;
  const ev = eventContent(chat, events[1]!.value, readOnly());
  t.is(ev.model, 'gpt-4.1-nano-2025-04-14');
  t.deepEqual(ev.finish, []);
  t.deepEqual(calls, ['event']);
  t.true(ev.deltas.length > 0);
  ev.texts();
  t.deepEqual(calls, ['event', 'eventParts']);
});

test('a view serializes as its content (what a log line records), never as the wire objects it points into', (t) => {
  const view = request('zhipu/fantasy-cassettes/glm-4.7-flash.tool.transcript.json#1 request');
  const json = JSON.parse(JSON.stringify(view));
  t.deepEqual(Object.keys(json), ['instructions', 'messages']);
  t.deepEqual(json.messages[3], { role: 'tool', parts: [{ type: 'tool_result', id: 'call_-7807249954186984837', output: '40 C' }] });
  t.deepEqual(json.messages[2].parts[2], { type: 'tool_call', id: 'call_-7807249954186984837', name: 'weather', arguments: '{"location":"Florence,Italy"}' });
  const ev = stream('openai/vercel-ai/chat.stream.tool-call-deltas.sse')[0]!;
  t.deepEqual(JSON.parse(JSON.stringify(ev)).deltas[0], {
    type: 'tool_arguments',
    index: 0,
    call: 0,
    id: 'call_O17Uplv4lJvD6DVdIvFFeRMw',
    name: 'test-tool',
    text: '',
  });
});
