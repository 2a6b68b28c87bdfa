import { readFileSync } from 'node:fs';
import test, { type ExecutionContext } from 'ava';
import { GatewayError } from '../../core/errors.ts';
import type { ChatMessage } from '../../lib/common/chat.ts';
import { validate } from '../../lib/schemas.ts';
import { googleSchemaToJsonSchema, normalizeJsonSchema } from '../../protocols/gemini/convert-schema.ts';
import { generateContentRequestSchema } from '../../protocols/gemini/schemas.ts';
import { geminiToChatRequest } from '../../protocols/gemini/to-chat-request.ts';
import type { GenerateContentBody } from '../../protocols/gemini/types.ts';

const fixture = (rel: string): GenerateContentBody =>
  JSON.parse(readFileSync(new URL(`../fixtures/gemini/${rel}`, import.meta.url), 'utf8')) as GenerateContentBody;
const translate = (body: GenerateContentBody, stream = false) => geminiToChatRequest(body, { model: 'gpt-4o-mini', stream });
const user = (text: string) => ({ role: 'user', parts: [{ text }] });

function rejects(t: ExecutionContext, body: unknown, param: string): GatewayError {
  const err = t.throws(() => translate(body as GenerateContentBody), { instanceOf: GatewayError });
  t.is(err.status, 400);
  t.is(err.param, param);
  t.true(err.message.includes(param), err.message);
  return err;
}

const weatherTool = {
  type: 'function',
  function: {
    name: 'weather',
    description: 'Get weather information for a location',
    parameters: { properties: { location: { description: 'the city', type: 'string' } }, required: ['location'], type: 'object' },
  },
};

test('recorded tool round trip (fantasy, gemini-2.5-flash): system, OpenAPI schema → JSON Schema, call and result paired by id', (t) => {
  const { req, warnings, includeThoughts } = translate(fixture('fantasy-requests/gemini-2.5-flash.tool.1.request.json'));
  t.deepEqual(req, {
    model: 'gpt-4o-mini',
    messages: [
      { role: 'system', content: 'You are a helpful assistant' },
      { role: 'user', content: "What's the weather in Florence,Italy?" },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: '1', type: 'function', function: { name: 'weather', arguments: '{"location":"Florence,Italy"}' } }],
      },
      { role: 'tool', tool_call_id: '1', content: '{"result":"40 C"}' },
    ],
    tools: [weatherTool],
    tool_choice: 'auto',
    max_tokens: 4000,
  });
  t.deepEqual(warnings, []);
  t.false(includeThoughts);
});

test('recorded parallel calls (fantasy multi_tool): both results answer their own call; the thoughtSignature is dropped', (t) => {
  const { req } = translate(fixture('fantasy-requests/gemini-2.5-flash.multi_tool.1.request.json'));
  t.deepEqual(req.messages.slice(2), [
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: '1', type: 'function', function: { name: 'add', arguments: '{"a":2,"b":3}' } },
        { id: '2', type: 'function', function: { name: 'multiply', arguments: '{"a":2,"b":3}' } },
      ],
    },
    { role: 'tool', tool_call_id: '1', content: '{"result":"5"}' },
    { role: 'tool', tool_call_id: '2', content: '{"result":"6"}' },
  ]);
  t.false(JSON.stringify(req).includes('thoughtSignature'));
  t.deepEqual(
    req.tools!.map((x) => x.function.parameters),
    [0, 1].map(() => ({
      properties: { a: { description: 'first number', type: 'integer' }, b: { description: 'second number', type: 'integer' } },
      required: ['a', 'b'],
      type: 'object',
    })),
  );
});

test('recorded thinking request: includeThoughts is reported, the budget dropped with a warning', (t) => {
  const { req, warnings, includeThoughts } = translate(fixture('fantasy-requests/gemini-2.5-flash.thinking.1.request.json'));
  t.true(includeThoughts);
  t.deepEqual(warnings, ['thinkingConfig.thinkingBudget dropped: no common-format equivalent (at generationConfig.thinkingConfig.thinkingBudget)']);
  t.false('reasoning_effort' in req);
});

test('recorded structured output: responseJsonSchema + application/json → response_format json_schema, schema intact', (t) => {
  const body = fixture('fantasy-requests/gemini-2.5-flash.complex_object.0.request.json');
  const { req } = translate(body);
  const gc = body.generationConfig as { responseJsonSchema: Record<string, unknown> };
  t.deepEqual(req.response_format, { type: 'json_schema', json_schema: { name: 'response', schema: gc.responseJsonSchema } });
  t.is(req.response_format!.json_schema!.schema, gc.responseJsonSchema, 'a valid JSON Schema is passed by reference, not copied');
  t.is(req.max_tokens, 4000);
});

test('recorded image upload: inlineData → image_url data URL, text kept as a part beside it', (t) => {
  const body = fixture('fantasy-requests/gemini-2.5-pro.image_upload.0.request.json');
  const { req } = translate(body);
  const data = (body.contents as Array<{ parts: Array<{ inlineData?: { data: string } }> }>)[0]!.parts[1]!.inlineData!.data;
  t.deepEqual(req.messages[1], {
    role: 'user',
    content: [
      { type: 'text', text: 'Describe the image briefly in English.' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${data}` } },
    ],
  });
});

test('recorded Gemini CLI 0.61 turn after read_file: its own call id pairs the functionResponse; output is the tool text', (t) => {
  const { req, warnings, includeThoughts } = translate(fixture('gemini-cli/read-file-turn.1.request.json'), true);
  t.true(req.stream);
  t.deepEqual(req.stream_options, { include_usage: true });
  t.true(includeThoughts);
  const [system, first, call, result] = req.messages as [ChatMessage, ChatMessage, ChatMessage, ChatMessage];
  t.is(system.role, 'system');
  t.true((system.content as string).startsWith('You are a non-interactive CLI agent'));
  t.is((first.content as Array<{ text: string }>)[1]!.text, 'What does hello.txt say?');
  const id = call.tool_calls![0]!.id;
  t.regex(id, /^read_file_\d+_0$/);
  t.deepEqual(call.tool_calls, [{ id, type: 'function', function: { name: 'read_file', arguments: '{"file_path":"hello.txt"}' } }]);
  t.deepEqual(result, { role: 'tool', tool_call_id: id, content: 'greetings from a file\n' });
  t.is(req.temperature, 1);
  t.is(req.top_p, 0.95);
  t.false('top_k' in req, 'OpenAI rejects top_k');
  t.deepEqual(warnings, [
    'generationConfig.topK dropped: no common-format equivalent (at generationConfig.topK)',
    'thinkingConfig.thinkingBudget dropped: no common-format equivalent (at generationConfig.thinkingConfig.thinkingBudget)',
  ]);
  t.deepEqual(
    req.tools!.map((x) => x.function.name),
    ['update_topic', 'list_directory', 'read_file', 'grep_search', 'glob', 'google_web_search', 'enter_plan_mode', 'invoke_agent'],
  );
});

test('calls without ids get call_<turn>_<part>; results pair by name in order; duplicate client ids are re-minted', (t) => {
  const { req } = translate({
    contents: [
      user('go'),
      {
        role: 'model',
        parts: [
          { text: 'Sure. ' },
          { text: 'Calling.' },
          { functionCall: { name: 'f', args: { n: 1 } } },
          { functionCall: { name: 'f', args: { n: 2 } } },
          { functionCall: { name: 'g' } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'g', response: { output: 'G' } } },
          { functionResponse: { name: 'f', response: { error: 'boom' } } },
          { functionResponse: { name: 'f', response: { output: { x: 1 } } } },
          { text: 'thanks' },
        ],
      },
      { role: 'model', parts: [{ functionCall: { id: 'a', name: 'f' } }, { functionCall: { id: 'a', name: 'f' } }] },
      { role: 'user', parts: [{ functionResponse: { id: 'a', name: 'f', response: {} } }, { functionResponse: { name: 'f', response: {} } }] },
    ],
  });
  t.deepEqual(req.messages, [
    { role: 'user', content: 'go' },
    {
      role: 'assistant',
      content: 'Sure. Calling.',
      tool_calls: [
        { id: 'call_1_2', type: 'function', function: { name: 'f', arguments: '{"n":1}' } },
        { id: 'call_1_3', type: 'function', function: { name: 'f', arguments: '{"n":2}' } },
        { id: 'call_1_4', type: 'function', function: { name: 'g', arguments: '{}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'call_1_4', content: 'G' },
    { role: 'tool', tool_call_id: 'call_1_2', content: 'Error: boom' },
    { role: 'tool', tool_call_id: 'call_1_3', content: '{"x":1}' },
    { role: 'user', content: 'thanks' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'a', type: 'function', function: { name: 'f', arguments: '{}' } },
        { id: 'call_3_1', type: 'function', function: { name: 'f', arguments: '{}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'a', content: '{}' },
    { role: 'tool', tool_call_id: 'call_3_1', content: '{}' },
  ]);
});

test('an unsafe client id is replaced, and still pairs its result', (t) => {
  const { req } = translate({
    contents: [
      user('go'),
      { role: 'model', parts: [{ functionCall: { id: 'has space', name: 'f', args: {} } }] },
      { role: 'user', parts: [{ functionResponse: { id: 'has space', name: 'f', response: { output: 'ok' } } }] },
    ],
  });
  t.is(req.messages[1]!.tool_calls![0]!.id, 'call_1_0');
  t.deepEqual(req.messages[2], { role: 'tool', tool_call_id: 'call_1_0', content: 'ok' });
});

test('functionResponse media moves to a user message after the tool messages', (t) => {
  const { req, warnings } = translate({
    contents: [
      user('shot'),
      { role: 'model', parts: [{ functionCall: { name: 'screenshot', args: {} } }] },
      {
        role: 'user',
        parts: [{ functionResponse: { name: 'screenshot', response: { output: 'taken' }, parts: [{ inlineData: { mimeType: 'image/png', data: 'AAAA' } }] } }],
      },
    ],
  });
  t.deepEqual(req.messages.slice(2), [
    { role: 'tool', tool_call_id: 'call_1_0', content: 'taken' },
    { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] },
  ]);
  t.deepEqual(warnings, ['functionResponse media moved to the following user message (at contents[2].parts[0].functionResponse.parts[0])']);
});

test('media: audio → input_audio, PDF → file, http image fileData → image_url; other files → 400', (t) => {
  const { req } = translate({
    contents: [
      {
        parts: [
          { inlineData: { mimeType: 'audio/wav', data: 'UklG' } },
          { inlineData: { mimeType: 'application/pdf', data: 'JVBE' } },
          { fileData: { mimeType: 'image/jpeg', fileUri: 'https://example.com/cat.jpg' } },
          { fileData: { fileUri: 'https://example.com/dog.png?x=1' } },
        ],
      },
    ],
  });
  t.deepEqual(req.messages[0]!.content, [
    { type: 'input_audio', input_audio: { data: 'UklG', format: 'wav' } },
    { type: 'file', file: { filename: 'file.pdf', file_data: 'data:application/pdf;base64,JVBE' } },
    { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
    { type: 'image_url', image_url: { url: 'https://example.com/dog.png?x=1' } },
  ]);
  rejects(
    t,
    { contents: [{ parts: [{ fileData: { mimeType: 'video/mp4', fileUri: 'https://generativelanguage.googleapis.com/v1beta/files/abc' } }] }] },
    'contents[0].parts[0].fileData.fileUri',
  );
  rejects(t, { contents: [{ parts: [{ fileData: { mimeType: 'image/png', fileUri: 'gs://bucket/a.png' } }] }] }, 'contents[0].parts[0].fileData.fileUri');
  rejects(t, { contents: [{ parts: [{ fileData: { mimeType: 'video/mp4', fileUri: 'https://youtu.be/x' } }] }] }, 'contents[0].parts[0].fileData.mimeType');
  rejects(t, { contents: [{ parts: [{ inlineData: { mimeType: 'image/png' } }] }] }, 'contents[0].parts[0].inlineData.data');
});

test('thought parts, code execution and model media are dropped with one warning per kind', (t) => {
  const { req, warnings } = translate({
    contents: [
      user('q'),
      {
        role: 'model',
        parts: [
          { text: 'pondering', thought: true },
          { text: 'A', thoughtSignature: 'c2ln' },
          { executableCode: { code: 'print(1)' } },
          { inlineData: { mimeType: 'image/png', data: 'AA' } },
        ],
      },
      { role: 'model', parts: [{ text: 'more', thought: true }] },
      user('r'),
    ],
  });
  t.deepEqual(req.messages, [
    { role: 'user', content: 'q' },
    { role: 'assistant', content: 'A' },
    { role: 'user', content: 'r' },
  ]);
  t.deepEqual(warnings, [
    'thought parts dropped (at contents[1].parts[0] and 1 more)',
    'code execution parts dropped: no common-format equivalent (at contents[1].parts[2])',
    'media parts in model turns dropped: assistant messages carry text and tool calls only (at contents[1].parts[3])',
    'turns without content dropped (at contents[2])',
  ]);
});

test('generationConfig: every mapped field, and Gemini-only fields dropped with warnings', (t) => {
  const { req, warnings } = translate({
    contents: [user('hi')],
    systemInstruction: { role: 'user', parts: [{ text: 'Be brief.' }, { text: 'Be kind.' }] },
    generationConfig: {
      maxOutputTokens: 100,
      temperature: 0.2,
      topP: 0.9,
      topK: 40,
      candidateCount: 2,
      seed: 7,
      presencePenalty: 0.1,
      frequencyPenalty: 0.3,
      stopSequences: ['END', 'STOP'],
      responseMimeType: 'application/json',
      responseModalities: ['TEXT'],
      thinkingConfig: { thinkingLevel: 'LOW' },
      responseLogprobs: true,
    },
    safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
    cachedContent: 'cachedContents/abc',
    labels: { team: 'x' },
  });
  t.deepEqual(req, {
    model: 'gpt-4o-mini',
    messages: [
      { role: 'system', content: 'Be brief.\n\nBe kind.' },
      { role: 'user', content: 'hi' },
    ],
    max_tokens: 100,
    temperature: 0.2,
    top_p: 0.9,
    n: 2,
    seed: 7,
    presence_penalty: 0.1,
    frequency_penalty: 0.3,
    stop: ['END', 'STOP'],
    response_format: { type: 'json_object' },
  });
  t.deepEqual(warnings, [
    'generationConfig.topK dropped: no common-format equivalent (at generationConfig.topK)',
    'generationConfig.responseLogprobs dropped: no common-format equivalent (at generationConfig.responseLogprobs)',
    'thinkingConfig.thinkingLevel dropped: no common-format equivalent (at generationConfig.thinkingConfig.thinkingLevel)',
    'safetySettings dropped: no common-format equivalent (at safetySettings)',
    'cachedContent dropped: no common-format equivalent (at cachedContent)',
    'labels dropped: no common-format equivalent (at labels)',
  ]);
});

test('responseSchema (OpenAPI subset) → JSON Schema; enums, nullable, int64 strings, propertyOrdering', (t) => {
  const { req } = translate({
    contents: [user('x')],
    generationConfig: {
      responseMimeType: 'application/json',
      responseSchema: {
        type: 'ARRAY',
        minItems: '1',
        maxItems: '3',
        items: {
          type: 'OBJECT',
          properties: {
            name: { type: 'STRING', nullable: true, example: 'Ada' },
            floor: { type: 'INTEGER', format: 'enum', enum: ['101', '201'] },
            type: { type: 'STRING', enum: ['OBJECT', 'cat'] },
            tag: { anyOf: [{ type: 'STRING' }, { type: 'NUMBER' }], nullable: true },
          },
          required: ['name'],
          propertyOrdering: ['name', 'floor'],
        },
      },
    },
  });
  t.deepEqual(req.response_format, {
    type: 'json_schema',
    json_schema: {
      name: 'response',
      schema: {
        type: 'array',
        minItems: 1,
        maxItems: 3,
        items: {
          type: 'object',
          properties: {
            name: { type: ['string', 'null'], examples: ['Ada'] },
            floor: { type: 'integer', format: 'enum', enum: [101, 201] },
            type: { type: 'string', enum: ['OBJECT', 'cat'] },
            tag: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'null' }] },
          },
          required: ['name'],
        },
      },
    },
  });
});

test('upper-case types inside a JSON Schema (as Gemini CLI sends responseJsonSchema) are lower-cased, copy-on-write', (t) => {
  const schema = { type: 'OBJECT', properties: { type: { type: 'STRING', enum: ['STRING'] }, n: { type: 'integer' } }, required: ['type'] };
  const out = normalizeJsonSchema(schema, 'p');
  t.deepEqual(out, { type: 'object', properties: { type: { type: 'string', enum: ['STRING'] }, n: { type: 'integer' } }, required: ['type'] });
  t.is(schema.type, 'OBJECT', 'the input is not mutated');
  t.is((out.properties as Record<string, unknown>).n, schema.properties.n, 'untouched branches are shared');
  const valid = { type: 'object', properties: { a: { type: 'string' } } };
  t.is(normalizeJsonSchema(valid, 'p'), valid);
  t.deepEqual(googleSchemaToJsonSchema({ type: 'TYPE_UNSPECIFIED', description: 'd' }, 'p'), { description: 'd' });
  t.throws(() => googleSchemaToJsonSchema({ type: 'OBJECT', properties: { a: 'STRING' } }, 'tools[0].functionDeclarations[0].parameters'), {
    instanceOf: GatewayError,
    message: /tools\[0\]\.functionDeclarations\[0\]\.parameters\.properties\.a/,
  });
});

test('tools: parametersJsonSchema kept, built-in tools dropped; toolConfig modes', (t) => {
  const decls = [
    { name: 'a', parametersJsonSchema: { type: 'object', properties: {}, additionalProperties: false } },
    { name: 'b', description: 'B', parameters: { type: 'OBJECT', properties: { q: { type: 'STRING' } } } },
    { name: 'c' },
  ];
  const body = (functionCallingConfig?: unknown): GenerateContentBody => ({
    contents: [user('x')],
    tools: [{ functionDeclarations: decls }, { googleSearch: {} }, { codeExecution: {} }],
    ...(functionCallingConfig === undefined ? {} : { toolConfig: { functionCallingConfig } }),
  });
  const r = translate(body());
  t.deepEqual(r.req.tools, [
    { type: 'function', function: { name: 'a', parameters: decls[0]!.parametersJsonSchema } },
    { type: 'function', function: { name: 'b', description: 'B', parameters: { type: 'object', properties: { q: { type: 'string' } } } } },
    { type: 'function', function: { name: 'c' } },
  ]);
  t.false('tool_choice' in r.req);
  t.deepEqual(r.warnings, [
    'built-in tool googleSearch dropped: it runs only on Gemini (at tools[1].googleSearch)',
    'built-in tool codeExecution dropped: it runs only on Gemini (at tools[2].codeExecution)',
  ]);
  t.is(translate(body({ mode: 'AUTO' })).req.tool_choice, 'auto');
  t.is(translate(body({ mode: 'NONE' })).req.tool_choice, 'none');
  t.is(translate(body({ mode: 'ANY' })).req.tool_choice, 'required');
  const one = translate(body({ mode: 'ANY', allowedFunctionNames: ['b'] })).req;
  t.deepEqual(one.tool_choice, { type: 'function', function: { name: 'b' } });
  t.is(one.tools!.length, 3);
  const two = translate(body({ mode: 'ANY', allowedFunctionNames: ['a', 'c'] })).req;
  t.is(two.tool_choice, 'required');
  t.deepEqual(
    two.tools!.map((x) => x.function.name),
    ['a', 'c'],
  );
  t.is(translate(body({ mode: 'VALIDATED' })).req.tool_choice, 'auto');
  rejects(t, body({ mode: 'SOMETIMES' }), 'toolConfig.functionCallingConfig.mode');
  rejects(t, body({ mode: 'ANY', allowedFunctionNames: ['zz'] }), 'toolConfig.functionCallingConfig.allowedFunctionNames[0]');
  const noTools = translate({ contents: [user('x')], toolConfig: { functionCallingConfig: { mode: 'ANY' } } });
  t.false('tool_choice' in noTools.req);
  t.deepEqual(noTools.warnings, ['toolConfig dropped: no function declarations to choose from (at toolConfig)']);
});

test('bad shapes → 400 naming the field', (t) => {
  rejects(t, { contents: 'hi' }, 'contents');
  rejects(t, {}, 'contents');
  rejects(t, { contents: [] }, 'contents');
  rejects(t, { contents: [{ role: 'system', parts: [{ text: 'x' }] }] }, 'contents[0].role');
  rejects(t, { contents: [{ role: 'user' }] }, 'contents[0].parts');
  rejects(t, { contents: [{ role: 'user', parts: [{ text: 3 }] }] }, 'contents[0].parts[0].text');
  rejects(t, { contents: [{ role: 'user', parts: [{ unknownThing: 1 }] }] }, 'contents[0].parts[0]');
  rejects(t, { contents: [user('x'), { role: 'model', parts: [{ functionCall: { args: {} } }] }] }, 'contents[1].parts[0].functionCall.name');
  rejects(t, { contents: [user('x'), { role: 'model', parts: [{ functionCall: { name: 'f', args: [1] } }] }] }, 'contents[1].parts[0].functionCall.args');
  rejects(t, { contents: [{ role: 'user', parts: [{ functionResponse: { name: 'f', response: {} } }] }] }, 'contents[0].parts[0].functionResponse');
  rejects(
    t,
    {
      contents: [
        user('x'),
        { role: 'model', parts: [{ functionCall: { name: 'f' } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'f', response: 'ok' } }] },
      ],
    },
    'contents[2].parts[0].functionResponse.response',
  );
  rejects(t, { contents: [user('x')], systemInstruction: { parts: [{ inlineData: { mimeType: 'image/png', data: 'AA' } }] } }, 'systemInstruction.parts[0]');
  rejects(t, { contents: [user('x')], generationConfig: { temperature: 'hot' } }, 'generationConfig.temperature');
  rejects(t, { contents: [user('x')], generationConfig: { stopSequences: 'END' } }, 'generationConfig.stopSequences');
  rejects(t, { contents: [user('x')], tools: [{ functionDeclarations: [{ description: 'no name' }] }] }, 'tools[0].functionDeclarations[0].name');
  t.throws(() => geminiToChatRequest({ contents: [user('x')] }, { model: '', stream: false }), { instanceOf: GatewayError, message: /no model/ });
});

test('the zod schema accepts the recorded requests and names the field it rejects', (t) => {
  for (const rel of [
    'fantasy-requests/gemini-2.5-flash.multi_tool.1.request.json',
    'fantasy-requests/gemini-2.5-pro.image_upload.0.request.json',
    'gemini-cli/read-file-turn.1.request.json',
  ]) {
    t.is(validate(generateContentRequestSchema, fixture(rel)), undefined, rel);
  }
  const err = validate(generateContentRequestSchema, { contents: [{ parts: 'x' }] });
  t.is(err?.status, 400);
  t.is(err?.param, 'contents[0].parts');
  t.is(validate(generateContentRequestSchema, { contents: [user('x')], generationConfig: { maxOutputTokens: -1 } })?.param, 'generationConfig.maxOutputTokens');
});
