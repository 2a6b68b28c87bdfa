import { readFileSync } from 'node:fs';
import test from 'ava';
import { GatewayError } from '../../core/errors.ts';
import type { ChatMessage, ChatRequest } from '../../lib/common/chat.ts';
import { FOREIGN_CALL_SIGNATURE } from '../../protocols/gemini/convert-messages.ts';
import { fromGeminiResponse } from '../../protocols/gemini/from-gemini-response.ts';
import { toGeminiRequest } from '../../protocols/gemini/to-gemini-request.ts';
import { counterIdSource } from '../../protocols/gemini/tool-call-ids.ts';
import type { GenerateContentResponse } from '../../protocols/gemini/types.ts';

const req = (messages: ChatMessage[], extra: Partial<ChatRequest> = {}): ChatRequest => ({ model: 'gemini-2.5-flash', messages, ...extra });
const user = (content: ChatMessage['content']): ChatMessage => ({ role: 'user', content });

function rejects(t: import('ava').ExecutionContext, r: ChatRequest, param: string): GatewayError {
  const err = t.throws(() => toGeminiRequest(r), { instanceOf: GatewayError });
  t.is(err.status, 400);
  t.is(err.param, param);
  return err;
}

test('system/developer → systemInstruction; consecutive same-role turns merge; model stays out of the body', (t) => {
  const { body, warnings } = toGeminiRequest(
    req(
      [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: [{ type: 'text', text: 'Answer in French.' }] },
        user('Hi'),
        user([{ type: 'text', text: 'there' }]),
        { role: 'assistant', content: 'Bonjour' },
        { role: 'assistant', content: [{ type: 'text', text: '!' }] },
        user(''),
        user('Merci'),
      ],
      { stream: true, stream_options: { include_usage: true } },
    ),
  );
  t.deepEqual(body, {
    systemInstruction: { parts: [{ text: 'Be brief.' }, { text: 'Answer in French.' }] },
    contents: [
      { role: 'user', parts: [{ text: 'Hi' }, { text: 'there' }] },
      { role: 'model', parts: [{ text: 'Bonjour' }, { text: '!' }] },
      { role: 'user', parts: [{ text: 'Merci' }] },
    ],
  });
  t.false('model' in body);
  t.deepEqual(warnings, ['messages[6] has no content Gemini accepts; skipped']);
});

test('a system message in mid-conversation is hoisted, with a warning', (t) => {
  const { body, warnings } = toGeminiRequest(req([user('a'), { role: 'system', content: 'late' }, user('b')]));
  t.deepEqual(body.systemInstruction, { parts: [{ text: 'late' }] });
  t.deepEqual(body.contents, [{ role: 'user', parts: [{ text: 'a' }, { text: 'b' }] }]);
  t.deepEqual(warnings, ['messages[1]: system message after the conversation started; hoisted into systemInstruction']);
});

test('tool round trip: the thought signature returns via the id, the function name via tool_call_id', (t) => {
  const raw = JSON.parse(readFileSync(new URL('../fixtures/gemini/vercel-ai/google-tool-call.json', import.meta.url), 'utf8')) as GenerateContentResponse;
  const signature = raw.candidates![0]!.content!.parts![0]!.thoughtSignature!;
  const answer = fromGeminiResponse(raw, { id: 'c1', model: 'gemini-3-pro-preview', created: 0, idSource: counterIdSource() }).choices[0]!.message;
  const callId = answer.tool_calls![0]!.id;
  const { body, warnings } = toGeminiRequest(
    req([user('Weather in SF?'), { ...answer, reasoning_content: 'thinking…' }, { role: 'tool', tool_call_id: callId, content: '40 C' }]),
  );
  t.deepEqual(body.contents, [
    { role: 'user', parts: [{ text: 'Weather in SF?' }] },
    { role: 'model', parts: [{ functionCall: { name: 'weather', args: { location: 'San Francisco' } }, thoughtSignature: signature }] },
    { role: 'user', parts: [{ functionResponse: { name: 'weather', response: { result: '40 C' } } }] },
  ]);
  t.deepEqual(warnings, ['messages[1].reasoning_content dropped: Gemini accepts thoughts back only with their signature']);
});

test('parallel tool results go into one user turn; a JSON-object result is sent as the object', (t) => {
  const { body } = toGeminiRequest(
    req([
      user('Compare'),
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_gw_a_ts_QUJD', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
          { id: 'call_gw_b', type: 'function', function: { name: 'time', arguments: '' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_gw_a_ts_QUJD', content: '{"temp":21,"unit":"C"}' },
      { role: 'tool', tool_call_id: 'call_gw_b', content: [{ type: 'text', text: '[1,2]' }] },
      user('and?'),
    ]),
  );
  t.deepEqual(body.contents, [
    { role: 'user', parts: [{ text: 'Compare' }] },
    {
      role: 'model',
      parts: [{ functionCall: { name: 'weather', args: { city: 'Paris' } }, thoughtSignature: 'QUJD' }, { functionCall: { name: 'time', args: {} } }],
    },
    {
      role: 'user',
      parts: [
        { functionResponse: { name: 'weather', response: { temp: 21, unit: 'C' } } },
        { functionResponse: { name: 'time', response: { result: '[1,2]' } } },
        { text: 'and?' },
      ],
    },
  ]);
});

test('tool calls not minted by gw get the documented validator-skip signature on the first call only', (t) => {
  const { body, warnings } = toGeminiRequest(
    req([
      user('q'),
      {
        role: 'assistant',
        content: 'Let me check.',
        tool_calls: [
          { id: 'call_abc123', type: 'function', function: { name: 'f', arguments: '{}' } },
          { id: 'call_def456', type: 'function', function: { name: 'g', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_abc123', content: 'x' },
      { role: 'tool', tool_call_id: 'call_def456', content: 'y' },
    ]),
  );
  t.deepEqual(body.contents[1], {
    role: 'model',
    parts: [
      { text: 'Let me check.' },
      { functionCall: { name: 'f', args: {} }, thoughtSignature: FOREIGN_CALL_SIGNATURE },
      { functionCall: { name: 'g', args: {} } },
    ],
  });
  t.deepEqual(warnings, ["messages[1].tool_calls[0]: id not minted by gw, no thought signature; sent Gemini's validator-skip signature"]);
  // a gw id without a signature means Gemini sent none: nothing is added
  const own = toGeminiRequest(
    req([
      user('q'),
      { role: 'assistant', tool_calls: [{ id: 'call_gw_z', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'call_gw_z', content: 'x' },
    ]),
  );
  t.deepEqual(own.body.contents[1], { role: 'model', parts: [{ functionCall: { name: 'f', args: {} } }] });
  t.deepEqual(own.warnings, []);
});

test('an unknown tool_call_id is a 400 naming messages[i].tool_call_id', (t) => {
  const err = rejects(t, req([user('q'), { role: 'tool', tool_call_id: 'call_nope', content: 'x' }]), 'messages[1].tool_call_id');
  t.regex(err.message, /call_nope/);
});

test('tool-call arguments that are not a JSON object are a 400 naming the field', (t) => {
  rejects(
    t,
    req([user('q'), { role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{bad' } }] }]),
    'messages[1].tool_calls[0].function.arguments',
  );
  rejects(
    t,
    req([user('q'), { role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '[1]' } }] }]),
    'messages[1].tool_calls[0].function.arguments',
  );
});

test('images: data URIs inline, https URLs as fileData with a guessed type and a warning', (t) => {
  const { body, warnings } = toGeminiRequest(
    req([
      user([
        { type: 'text', text: 'Compare these' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
        { type: 'image_url', image_url: { url: 'https://example.com/cat.WEBP?size=large', detail: 'high' } },
        { type: 'image_url', image_url: { url: 'https://example.com/render' } },
        { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
        { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'a.pdf' } },
      ]),
    ]),
  );
  t.deepEqual(body.contents[0]!.parts, [
    { text: 'Compare these' },
    { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
    { fileData: { mimeType: 'image/webp', fileUri: 'https://example.com/cat.WEBP?size=large' } },
    { fileData: { mimeType: 'image/jpeg', fileUri: 'https://example.com/render' } },
    { inlineData: { mimeType: 'audio/wav', data: 'UklGRg==' } },
    { inlineData: { mimeType: 'application/pdf', data: 'JVBERi0=' } },
  ]);
  t.is(warnings.length, 2);
  t.true(warnings[0]!.startsWith('messages[0].content[2].image_url.url: image URL sent as fileData.fileUri'));
  t.true(warnings[1]!.startsWith('messages[0].content[3].image_url.url'));
});

test('unsupported content is a 400 naming the part', (t) => {
  rejects(t, req([user([{ type: 'image_url', image_url: { url: 'ftp://x/y.png' } }])]), 'messages[0].content[0].image_url.url');
  rejects(t, req([user([{ type: 'image_url', image_url: { url: 'data:;base64,AAAA' } }])]), 'messages[0].content[0].image_url.url');
  rejects(t, req([user([{ type: 'video', video: {} }])]), 'messages[0].content[0].type');
  rejects(t, req([user([{ type: 'file', file: { file_id: 'file-abc' } }])]), 'messages[0].content[0].file.file_id');
  rejects(
    t,
    req([{ role: 'system', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AA==' } }] }, user('x')]),
    'messages[0].content[0].type',
  );
  rejects(t, req([{ role: 'critic', content: 'x' }]), 'messages[0].role');
  rejects(t, req([{ role: 'system', content: 'only me' }]), 'messages');
});

test('tools → one functionDeclarations list with parametersJsonSchema intact, minus top-level $schema', (t) => {
  const parameters = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: { city: { type: 'string', enum: ['Paris', 'Rome'] }, when: { anyOf: [{ type: 'string', format: 'date' }, { type: 'null' }] } },
    required: ['city'],
    additionalProperties: false,
    $defs: { unused: { $schema: 'kept: not top-level' } },
  };
  const { body, warnings } = toGeminiRequest(
    req([user('q')], {
      tools: [
        { type: 'function', function: { name: 'weather', description: 'Weather by city', parameters, strict: true } },
        { type: 'function', function: { name: 'ping' } },
      ],
      tool_choice: 'required',
    }),
  );
  const { $schema: _, ...rest } = parameters;
  t.deepEqual(body.tools, [{ functionDeclarations: [{ name: 'weather', description: 'Weather by city', parametersJsonSchema: rest }, { name: 'ping' }] }]);
  t.deepEqual(body.toolConfig, { functionCallingConfig: { mode: 'ANY' } });
  t.deepEqual(warnings, ['tools[0].function.strict dropped: Gemini has no strict mode for function calls']);
  rejects(t, req([user('q')], { tools: [{ type: 'web_search' } as never] }), 'tools[0].type');
});

test('tool_choice maps to functionCallingConfig', (t) => {
  const tools: ChatRequest['tools'] = [{ type: 'function', function: { name: 'f' } }];
  const cfg = (tool_choice: ChatRequest['tool_choice']) => toGeminiRequest(req([user('q')], { tools, tool_choice })).body.toolConfig;
  t.deepEqual(cfg('auto'), { functionCallingConfig: { mode: 'AUTO' } });
  t.deepEqual(cfg('required'), { functionCallingConfig: { mode: 'ANY' } });
  t.deepEqual(cfg('none'), { functionCallingConfig: { mode: 'NONE' } });
  t.deepEqual(cfg({ type: 'function', function: { name: 'f' } }), { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['f'] } });
  t.is(cfg(undefined), undefined);
  rejects(t, req([user('q')], { tools, tool_choice: 'sometimes' as never }), 'tool_choice');
  const noTools = toGeminiRequest(req([user('q')], { tool_choice: 'auto' }));
  t.is(noTools.body.toolConfig, undefined);
  t.deepEqual(noTools.warnings, ['tool_choice dropped: no tools were given']);
});

test('sampling parameters → generationConfig; max_completion_tokens wins over max_tokens', (t) => {
  const { body, warnings } = toGeminiRequest(
    req([user('q')], {
      temperature: 0.2,
      top_p: 0.9,
      max_tokens: 50,
      max_completion_tokens: 100,
      stop: 'END',
      n: 2,
      seed: 7,
      presence_penalty: 0.5,
      frequency_penalty: -0.5,
      logit_bias: null,
    }),
  );
  t.deepEqual(body.generationConfig, {
    temperature: 0.2,
    topP: 0.9,
    maxOutputTokens: 100,
    candidateCount: 2,
    seed: 7,
    presencePenalty: 0.5,
    frequencyPenalty: -0.5,
    stopSequences: ['END'],
  });
  t.deepEqual(warnings, []);
  t.deepEqual(toGeminiRequest(req([user('q')], { max_tokens: 50, stop: ['a', 'b'] })).body.generationConfig, {
    maxOutputTokens: 50,
    stopSequences: ['a', 'b'],
  });
  t.is(toGeminiRequest(req([user('q')], { temperature: null })).body.generationConfig, undefined);
  rejects(t, req([user('q')], { temperature: 'hot' as never }), 'temperature');
});

test('response_format: json_object → JSON mime type; json_schema → responseJsonSchema', (t) => {
  t.deepEqual(toGeminiRequest(req([user('q')], { response_format: { type: 'json_object' } })).body.generationConfig, { responseMimeType: 'application/json' });
  const schema = { type: 'object', properties: { answer: { type: 'integer' } }, required: ['answer'], additionalProperties: false };
  t.deepEqual(
    toGeminiRequest(
      req([user('q')], {
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'a', strict: true, schema: { $schema: 'https://json-schema.org/draft/2020-12/schema', ...schema } },
        },
      }),
    ).body.generationConfig,
    { responseMimeType: 'application/json', responseJsonSchema: schema },
  );
  t.is(toGeminiRequest(req([user('q')], { response_format: { type: 'text' } })).body.generationConfig, undefined);
  rejects(t, req([user('q')], { response_format: { type: 'grammar' } }), 'response_format.type');
});

test('reasoning_effort → thinkingConfig budgets; none turns thinking off', (t) => {
  const tc = (reasoning_effort: string) => toGeminiRequest(req([user('q')], { reasoning_effort })).body.generationConfig?.thinkingConfig;
  t.deepEqual(tc('none'), { thinkingBudget: 0 });
  t.deepEqual(tc('minimal'), { thinkingBudget: 1024, includeThoughts: true });
  t.deepEqual(tc('low'), { thinkingBudget: 1024, includeThoughts: true });
  t.deepEqual(tc('medium'), { thinkingBudget: 8192, includeThoughts: true });
  t.deepEqual(tc('high'), { thinkingBudget: 24576, includeThoughts: true });
  rejects(t, req([user('q')], { reasoning_effort: 'maximum' }), 'reasoning_effort');
  rejects(t, req([user('q')], { reasoning_effort: 'constructor' }), 'reasoning_effort');
});

test('OpenAI-only fields are dropped with one warning each', (t) => {
  const { body, warnings } = toGeminiRequest(
    req([user('q')], { logprobs: true, top_logprobs: 3, user: 'u1', parallel_tool_calls: false, modalities: ['text'], metadata: null }),
  );
  t.deepEqual(Object.keys(body), ['contents']);
  t.deepEqual(warnings, [
    'parallel_tool_calls=false dropped: Gemini has no switch for parallel calls',
    'logprobs dropped: no Gemini equivalent',
    'top_logprobs dropped: no Gemini equivalent',
    'user dropped: no Gemini equivalent',
    'modalities dropped: no Gemini equivalent',
  ]);
});
