/**
 * Generated requests, answers and stream events of each protocol (fast-check arbitraries)
 * for the content-view property tests: every shape the readers know, with the strings a
 * mask must never touch (model names, ids, tool names with digits and dashes) drawn from
 * the same pool as the texts, so a reader that reports one of them as text is caught.
 */
import fc from 'fast-check';
import type { ProtocolId } from './content-fixtures.ts';

type Obj = Record<string, unknown>;
type Arb = fc.Arbitrary<Obj>;

/** Names a mask leaves alone (issue 41: `gpt-5.4-nano` became `[GERMAN_KFZ_REDACTED].4-nano`). */
export const LABELS = ['gpt-5.4-nano', 'claude-sonnet-4-5-20250929', 'gemini-2.5-flash', 'call_-7807249954186984837', 'toolu_01A9', 'get_weather-2', 'fc_0775'];

const label = fc.oneof(fc.constantFrom(...LABELS), fc.stringMatching(/^[a-z][a-z0-9_-]{0,10}$/));
const model = fc.constantFrom('gpt-5.4-nano', 'claude-sonnet-4-5-20250929', 'gemini-2.5-flash');
/** Text: anything, including what looks like a label, an email, a key, JSON or nothing. */
const text = fc.oneof(
  fc.string({ maxLength: 24 }),
  fc.constantFrom(...LABELS, 'ann@example.com', 'AKIAIOSFODNN7EXAMPLE', '', '{"a":"b"}', 'tool_use', 'héllo 世界 🎉'),
);
/** A tool call's arguments as an object: any JSON under any keys (`__proto__` too). */
const argsObject = fc.dictionary(fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('__proto__', 'id', 'name', 'model')), fc.jsonValue({ maxDepth: 2 }), {
  maxKeys: 4,
});
/** Arguments as JSON text, or text that is not JSON (a model's malformed call). */
const argsText = fc.oneof(
  argsObject.map((o) => JSON.stringify(o)),
  argsObject.map((o) => JSON.stringify(o, null, 2)),
  text,
);
const schema = fc.constant({ type: 'object', properties: { city: { type: 'string', description: 'the city' } } });
const some = <T>(arb: fc.Arbitrary<T>, max = 4) => fc.array(arb, { maxLength: max });
const opt = <T extends Obj>(shape: { [K in keyof T]: fc.Arbitrary<T[K]> }, required: Array<keyof T>) =>
  fc.record(shape, { requiredKeys: required as never }) as unknown as Arb;
const url = fc.constantFrom('https://example.com/a.png', 'data:image/png;base64,iVBORw0KGgo=');
const base64 = fc.constantFrom('iVBORw0KGgo=', 'JVBERi0xLjQ=');

// ---- chat completions ----

const chatCall = fc.record({ id: label, type: fc.constant('function'), function: fc.record({ name: label, arguments: argsText }) });
const chatParts = some(fc.oneof(fc.record({ type: fc.constant('text'), text }), fc.record({ type: fc.constant('image_url'), image_url: fc.record({ url }) })));
const chatAssistant = opt(
  {
    role: fc.constant('assistant'),
    content: fc.oneof(text, fc.constant(null)),
    reasoning_content: text,
    refusal: text,
    tool_calls: some(chatCall, 3),
    name: label,
  },
  ['role', 'content'],
);
const chatMessage = fc.oneof(
  fc.record({ role: fc.constantFrom('system', 'developer', 'user'), content: fc.oneof(text, chatParts) }),
  chatAssistant,
  fc.record({ role: fc.constant('tool'), tool_call_id: label, content: fc.oneof(text, some(fc.record({ type: fc.constant('text'), text }))) }),
);
const chatTool = fc.record({ type: fc.constant('function'), function: opt({ name: label, description: text, parameters: schema }, ['name']) });

const chatRequest = opt(
  {
    model,
    messages: fc.array(chatMessage, { minLength: 1, maxLength: 6 }),
    tools: some(chatTool),
    temperature: fc.double({ min: 0, max: 2, noNaN: true }),
    stop: fc.oneof(text, some(text)),
    user: label,
  },
  ['model', 'messages'],
);
const chatAnswer = fc.record({
  id: label,
  object: fc.constant('chat.completion'),
  created: fc.nat(),
  model,
  choices: fc.array(fc.record({ index: fc.nat(3), message: chatAssistant, finish_reason: fc.constantFrom('stop', 'length', 'tool_calls', null) }), {
    maxLength: 2,
  }),
});
const chatDelta = opt(
  {
    role: fc.constant('assistant'),
    content: text,
    reasoning_content: text,
    refusal: text,
    tool_calls: some(
      opt({ index: fc.nat(3), id: label, type: fc.constant('function'), function: opt({ name: label, arguments: text }, ['arguments']) }, [
        'index',
        'function',
      ]),
      2,
    ),
  },
  [],
);
const chatEvent = fc.record({
  id: label,
  object: fc.constant('chat.completion.chunk'),
  created: fc.nat(),
  model,
  choices: fc.array(fc.record({ index: fc.nat(3), delta: chatDelta, finish_reason: fc.constantFrom('stop', 'tool_calls', null) }), { maxLength: 2 }),
});

// ---- Messages ----

const messagesToolUse = fc.record({ type: fc.constant('tool_use'), id: label, name: label, input: argsObject });
const messagesAnswerBlock = fc.oneof(
  opt({ type: fc.constant('text'), text, citations: fc.constant(null) }, ['type', 'text']),
  fc.record({ type: fc.constant('thinking'), thinking: text, signature: label }),
  fc.record({ type: fc.constant('redacted_thinking'), data: base64 }),
  messagesToolUse,
);
const messagesBlock = fc.oneof(
  messagesAnswerBlock,
  opt(
    {
      type: fc.constant('tool_result'),
      tool_use_id: label,
      content: fc.oneof(
        text,
        some(
          fc.oneof(
            fc.record({ type: fc.constant('text'), text }),
            fc.record({ type: fc.constant('image'), source: fc.record({ type: fc.constant('url'), url }) }),
          ),
        ),
      ),
      is_error: fc.boolean(),
    },
    ['type', 'tool_use_id'],
  ),
  fc.record({ type: fc.constant('image'), source: fc.record({ type: fc.constant('base64'), media_type: fc.constant('image/png'), data: base64 }) }),
  fc.record({ type: fc.constant('document'), source: fc.record({ type: fc.constant('text'), media_type: fc.constant('text/plain'), data: text }) }),
);
const messagesRequest = opt(
  {
    model,
    max_tokens: fc.integer({ min: 1, max: 64_000 }),
    system: fc.oneof(text, some(opt({ type: fc.constant('text'), text, cache_control: fc.constant({ type: 'ephemeral' }) }, ['type', 'text']))),
    messages: fc.array(fc.record({ role: fc.constantFrom('user', 'assistant'), content: fc.oneof(text, some(messagesBlock)) }), { minLength: 1, maxLength: 5 }),
    tools: some(opt({ name: label, description: text, input_schema: schema }, ['name', 'input_schema'])),
    stop_sequences: some(text),
    top_k: fc.nat(),
  },
  ['model', 'max_tokens', 'messages'],
);
const messagesAnswer = fc.record({
  id: label,
  type: fc.constant('message'),
  role: fc.constant('assistant'),
  model,
  content: some(messagesAnswerBlock),
  stop_reason: fc.constantFrom('end_turn', 'tool_use', 'max_tokens', 'refusal', null),
  stop_sequence: fc.constant(null),
  usage: fc.record({ input_tokens: fc.nat(), output_tokens: fc.nat() }),
});
const messagesEvent = fc.oneof(
  fc.record({
    type: fc.constant('message_start'),
    message: fc.record({
      id: label,
      type: fc.constant('message'),
      role: fc.constant('assistant'),
      model,
      content: some(messagesAnswerBlock, 2),
      stop_reason: fc.constant(null),
    }),
  }),
  fc.record({
    type: fc.constant('content_block_start'),
    index: fc.nat(5),
    content_block: fc.oneof(
      fc.record({ type: fc.constant('text'), text }),
      fc.record({ type: fc.constant('thinking'), thinking: text, signature: fc.constant('') }),
      messagesToolUse,
    ),
  }),
  fc.record({
    type: fc.constant('content_block_delta'),
    index: fc.nat(5),
    delta: fc.oneof(
      fc.record({ type: fc.constant('text_delta'), text }),
      fc.record({ type: fc.constant('thinking_delta'), thinking: text }),
      fc.record({ type: fc.constant('input_json_delta'), partial_json: text }),
      fc.record({ type: fc.constant('signature_delta'), signature: label }),
    ),
  }),
  fc.record({
    type: fc.constant('message_delta'),
    delta: fc.record({ stop_reason: fc.constantFrom('end_turn', 'tool_use'), stop_sequence: fc.constant(null) }),
    usage: fc.record({ output_tokens: fc.nat() }),
  }),
  fc.record({ type: fc.constantFrom('message_stop', 'ping', 'content_block_stop') }),
);

// ---- Responses ----

const responsesContentPart = fc.oneof(
  fc.record({ type: fc.constantFrom('input_text', 'output_text'), text }),
  fc.record({ type: fc.constant('refusal'), refusal: text }),
  fc.record({ type: fc.constant('input_image'), image_url: url, detail: fc.constant('auto') }),
  fc.record({ type: fc.constant('input_file'), filename: label, file_data: base64 }),
);
const responsesFunctionCall = opt(
  { type: fc.constant('function_call'), id: label, call_id: label, name: label, arguments: argsText, status: fc.constant('completed') },
  ['type', 'call_id', 'name', 'arguments'],
);
const responsesReasoning = opt(
  {
    type: fc.constant('reasoning'),
    id: label,
    summary: some(fc.record({ type: fc.constant('summary_text'), text })),
    content: some(fc.record({ type: fc.constant('reasoning_text'), text })),
    encrypted_content: base64,
  },
  ['type', 'id', 'summary'],
);
const responsesMessage = opt(
  {
    type: fc.constant('message'),
    id: label,
    role: fc.constantFrom('user', 'assistant', 'system', 'developer'),
    content: fc.oneof(text, some(responsesContentPart)),
  },
  ['role', 'content'],
);
const responsesOutputMessage = fc.record({
  type: fc.constant('message'),
  id: label,
  status: fc.constant('completed'),
  role: fc.constant('assistant'),
  content: some(
    fc.oneof(fc.record({ type: fc.constant('output_text'), text, annotations: fc.constant([]) }), fc.record({ type: fc.constant('refusal'), refusal: text })),
  ),
});
const responsesItem = fc.oneof(
  responsesMessage,
  responsesFunctionCall,
  fc.record({ type: fc.constant('function_call_output'), call_id: label, output: fc.oneof(text, some(responsesContentPart)) }),
  fc.record({ type: fc.constant('custom_tool_call'), call_id: label, name: label, input: text }),
  fc.record({ type: fc.constant('custom_tool_call_output'), call_id: label, output: text }),
  responsesReasoning,
  fc.record({
    type: fc.constant('web_search_call'),
    id: label,
    status: fc.constant('completed'),
    action: fc.record({ type: fc.constant('search'), query: text }),
  }),
);
const responsesFunctionTool = opt({ type: fc.constant('function'), name: label, description: text, parameters: schema, strict: fc.boolean() }, [
  'type',
  'name',
]);
const responsesRequest = opt(
  {
    model,
    instructions: text,
    input: fc.oneof(text, fc.array(responsesItem, { maxLength: 6 })),
    tools: some(
      fc.oneof(
        responsesFunctionTool,
        fc.record({ type: fc.constant('namespace'), name: label, description: text, tools: some(responsesFunctionTool, 2) }),
        fc.record({ type: fc.constant('web_search') }),
        fc.record({ type: fc.constant('custom'), name: label, description: text }),
      ),
    ),
    temperature: fc.double({ min: 0, max: 2, noNaN: true }),
    previous_response_id: label,
  },
  ['model'],
);
const responsesOutputItem = fc.oneof(responsesOutputMessage, responsesFunctionCall, responsesReasoning);
const responsesAnswer = fc.record({
  id: label,
  object: fc.constant('response'),
  created_at: fc.nat(),
  status: fc.constantFrom('completed', 'incomplete', 'failed', 'in_progress'),
  incomplete_details: fc.oneof(fc.constant(null), fc.record({ reason: fc.constantFrom('max_output_tokens', 'content_filter') })),
  instructions: fc.oneof(fc.constant(null), text),
  model,
  output: some(responsesOutputItem),
});
const seq = { sequence_number: fc.nat(), item_id: label, output_index: fc.nat(4), content_index: fc.nat(2) };
const responsesEvent = fc.oneof(
  fc.record({
    type: fc.constantFrom(
      'response.output_text.delta',
      'response.refusal.delta',
      'response.reasoning_text.delta',
      'response.reasoning_summary_text.delta',
      'response.function_call_arguments.delta',
      'response.custom_tool_call_input.delta',
    ),
    delta: text,
    ...seq,
  }),
  fc.record({ type: fc.constantFrom('response.output_text.done', 'response.reasoning_text.done', 'response.reasoning_summary_text.done'), text, ...seq }),
  fc.record({ type: fc.constant('response.refusal.done'), refusal: text, ...seq }),
  fc.record({ type: fc.constant('response.function_call_arguments.done'), name: label, arguments: argsText, ...seq }),
  fc.record({
    type: fc.constantFrom('response.content_part.added', 'response.content_part.done', 'response.reasoning_summary_part.done'),
    part: fc.oneof(
      fc.record({ type: fc.constantFrom('output_text', 'summary_text', 'reasoning_text'), text }),
      fc.record({ type: fc.constant('refusal'), refusal: text }),
    ),
    ...seq,
  }),
  fc.record({
    type: fc.constantFrom('response.output_item.added', 'response.output_item.done'),
    item: responsesOutputItem,
    output_index: fc.nat(4),
    sequence_number: fc.nat(),
  }),
  fc.record({ type: fc.constantFrom('response.created', 'response.completed', 'response.incomplete'), response: responsesAnswer, sequence_number: fc.nat() }),
);

// ---- Gemini ----

const geminiPart = fc.oneof(
  opt({ text, thought: fc.boolean(), thoughtSignature: base64 }, ['text']),
  opt({ functionCall: opt({ id: label, name: label, args: argsObject }, ['name', 'args']), thoughtSignature: base64 }, ['functionCall']),
  fc.record({ functionResponse: opt({ id: label, name: label, response: argsObject }, ['name', 'response']) }),
  fc.record({ inlineData: fc.record({ mimeType: fc.constant('image/png'), data: base64 }) }),
  fc.record({ fileData: fc.record({ mimeType: fc.constant('application/pdf'), fileUri: url }) }),
);
const geminiRequest = opt(
  {
    contents: fc.array(fc.record({ role: fc.constantFrom('user', 'model'), parts: some(geminiPart) }), { maxLength: 5 }),
    systemInstruction: fc.oneof(text, fc.record({ parts: some(fc.record({ text })) })),
    tools: some(fc.record({ functionDeclarations: some(opt({ name: label, description: text, parametersJsonSchema: schema }, ['name'])) }), 2),
    generationConfig: opt({ temperature: fc.double({ min: 0, max: 2, noNaN: true }), topK: fc.nat(), stopSequences: some(text) }, []),
  },
  ['contents'],
);
const geminiCandidate = opt(
  {
    content: fc.record({
      role: fc.constant('model'),
      parts: some(
        fc.oneof(
          geminiPart,
          fc.record({
            functionCall: opt(
              {
                name: label,
                partialArgs: some(opt({ jsonPath: fc.constant('$.city'), stringValue: text, willContinue: fc.boolean() }, ['jsonPath'])),
                willContinue: fc.boolean(),
              },
              [],
            ),
          }),
        ),
      ),
    }),
    finishReason: fc.constantFrom('STOP', 'MAX_TOKENS', 'SAFETY'),
    index: fc.nat(2),
  },
  ['content'],
);
const geminiAnswer = opt(
  { candidates: some(geminiCandidate, 2), modelVersion: model, responseId: label, usageMetadata: fc.record({ promptTokenCount: fc.nat() }) },
  ['candidates'],
);

/** Generated bodies by protocol: a request, a whole answer, one stream event. */
export const BODIES: Readonly<Record<ProtocolId, { request: Arb; answer: Arb; event: Arb }>> = {
  'openai-chat': { request: chatRequest, answer: chatAnswer, event: chatEvent },
  'anthropic-messages': { request: messagesRequest, answer: messagesAnswer, event: messagesEvent },
  'openai-responses': { request: responsesRequest, answer: responsesAnswer, event: responsesEvent },
  gemini: { request: geminiRequest, answer: geminiAnswer, event: geminiAnswer },
};
