import { readFileSync } from 'node:fs';
import test from 'ava';
import { GatewayError } from '../../core/errors.ts';
import type { ChatCompletion, EmbeddingsResponse } from '../../lib/common/chat.ts';
import { validate } from '../../lib/schemas.ts';
import { estimateCountTokens, IMAGE_TOKENS, TURN_TOKENS } from '../../protocols/gemini/count-tokens.ts';
import {
  batchEmbedContentsToEmbeddings,
  embedContentToEmbeddings,
  embeddingsToBatchEmbedContents,
  embeddingsToEmbedContent,
} from '../../protocols/gemini/embed-content.ts';
import { chatCompletionToGemini } from '../../protocols/gemini/from-chat-completion.ts';
import { googleStatusName, toGoogleError } from '../../protocols/gemini/google-error.ts';
import { toGeminiFinishReason } from '../../protocols/gemini/map-finish-reason.ts';
import { toUsageMetadata } from '../../protocols/gemini/map-usage.ts';
import { listGeminiModels, splitModelMethod, toGeminiModel } from '../../protocols/gemini/models.ts';
import { batchEmbedContentsRequestSchema, countTokensRequestSchema } from '../../protocols/gemini/schemas.ts';
import { geminiToChatRequest } from '../../protocols/gemini/to-chat-request.ts';

const read = <T>(rel: string): T => JSON.parse(readFileSync(new URL(`../fixtures/${rel}`, import.meta.url), 'utf8')) as T;

test('recorded tool-call completion (OpenAI spec example) → functionCall with parsed args and the upstream id', (t) => {
  const res = chatCompletionToGemini(read<ChatCompletion>('openai/spec-examples/chat.functions.response.json'), { includeThoughts: false });
  t.deepEqual(res, {
    candidates: [
      {
        content: { role: 'model', parts: [{ functionCall: { name: 'get_current_weather', args: { location: 'Boston, MA' }, id: 'call_abc123' } }] },
        finishReason: 'STOP',
        index: 0,
      },
    ],
    usageMetadata: { promptTokenCount: 82, candidatesTokenCount: 17, totalTokenCount: 99 },
    modelVersion: 'gpt-4o-mini',
    responseId: 'chatcmpl-abc123',
  });
});

test('recorded text completion (OpenAI spec example) → one text part, STOP', (t) => {
  const completion = read<ChatCompletion>('openai/spec-examples/chat.default.response.json');
  const res = chatCompletionToGemini(completion, { includeThoughts: false });
  t.deepEqual(res.candidates![0]!.content, { role: 'model', parts: [{ text: completion.choices[0]!.message.content as string }] });
  t.is(res.candidates![0]!.finishReason, 'STOP');
  t.is(res.usageMetadata!.totalTokenCount, completion.usage!.total_tokens);
});

test('a tool-call round trip: the id Gemini clients echo back pairs the result with the upstream call', (t) => {
  const completion = read<ChatCompletion>('openai/spec-examples/chat.functions.response.json');
  const answer = chatCompletionToGemini(completion, { includeThoughts: false }).candidates![0]!.content!;
  // what a Gemini client sends next: the model turn as received, then its function result
  const { req } = geminiToChatRequest(
    {
      contents: [
        { role: 'user', parts: [{ text: 'Weather in Boston?' }] },
        answer,
        { role: 'user', parts: [{ functionResponse: { id: 'call_abc123', name: 'get_current_weather', response: { output: '22 C' } } }] },
      ],
    },
    { model: 'gpt-4o-mini', stream: false },
  );
  t.deepEqual(req.messages.slice(1), [
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_abc123', type: 'function', function: { name: 'get_current_weather', arguments: '{"location":"Boston, MA"}' } }],
    },
    { role: 'tool', tool_call_id: 'call_abc123', content: '22 C' },
  ]);
});

test('reasoning → a thought part first, only with includeThoughts; usage splits thoughts from candidates', (t) => {
  const completion: ChatCompletion = {
    id: 'c1',
    object: 'chat.completion',
    created: 1,
    model: 'qwen-plus',
    choices: [
      {
        index: 0,
        finish_reason: 'length',
        message: {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Half' },
            { type: 'text', text: ' an answer' },
          ],
          reasoning_content: 'thinking',
        },
      },
      { index: 1, finish_reason: 'content_filter', message: { role: 'assistant', content: null, refusal: 'I cannot.' } },
      { index: 2, finish_reason: null, message: { role: 'assistant', content: '' } },
    ],
    usage: {
      prompt_tokens: 10,
      completion_tokens: 30,
      total_tokens: 40,
      prompt_tokens_details: { cached_tokens: 4 },
      completion_tokens_details: { reasoning_tokens: 12 },
    },
  };
  const withThoughts = chatCompletionToGemini(completion, { includeThoughts: true });
  t.deepEqual(withThoughts.candidates, [
    { content: { role: 'model', parts: [{ text: 'thinking', thought: true }, { text: 'Half an answer' }] }, finishReason: 'MAX_TOKENS', index: 0 },
    { content: { role: 'model', parts: [{ text: 'I cannot.' }] }, finishReason: 'SAFETY', index: 1 },
    { content: { role: 'model', parts: [{ text: '' }] }, finishReason: 'STOP', index: 2 },
  ]);
  t.deepEqual(withThoughts.usageMetadata, {
    promptTokenCount: 10,
    candidatesTokenCount: 18,
    thoughtsTokenCount: 12,
    totalTokenCount: 40,
    cachedContentTokenCount: 4,
  });
  const without = chatCompletionToGemini(completion, { includeThoughts: false });
  t.deepEqual(without.candidates![0]!.content!.parts, [{ text: 'Half an answer' }]);
});

test('finish reasons and usage edge cases', (t) => {
  t.deepEqual(['stop', 'length', 'tool_calls', 'content_filter', 'function_call', null, 'weird'].map(toGeminiFinishReason), [
    'STOP',
    'MAX_TOKENS',
    'STOP',
    'SAFETY',
    'STOP',
    'STOP',
    'OTHER',
  ]);
  t.deepEqual(toUsageMetadata({ prompt_tokens: 5, completion_tokens: 2, total_tokens: 0 }), {
    promptTokenCount: 5,
    candidatesTokenCount: 2,
    totalTokenCount: 7,
  });
  t.deepEqual(toUsageMetadata({ prompt_tokens: 5, completion_tokens: 2, total_tokens: 7, completion_tokens_details: { reasoning_tokens: 9 } }), {
    promptTokenCount: 5,
    candidatesTokenCount: 0,
    thoughtsTokenCount: 2,
    totalTokenCount: 7,
  });
  const bad = chatCompletionToGemini(
    {
      id: '',
      object: 'chat.completion',
      created: 0,
      model: '',
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          message: { role: 'assistant', tool_calls: [{ id: '', type: 'function', function: { name: 'f', arguments: '{"a":' } }] },
        },
      ],
    },
    { includeThoughts: false },
  );
  t.deepEqual(bad, {
    candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'f', args: { _raw: '{"a":' } } }] }, finishReason: 'STOP', index: 0 }],
  });
});

test('errors in Google shape: status names, ErrorInfo and RetryInfo details', (t) => {
  const table = [400, 401, 403, 404, 413, 415, 418, 429, 499, 500, 502, 503, 504, 599].map((s) => [s, googleStatusName(s)]);
  t.deepEqual(table, [
    [400, 'INVALID_ARGUMENT'],
    [401, 'UNAUTHENTICATED'],
    [403, 'PERMISSION_DENIED'],
    [404, 'NOT_FOUND'],
    [413, 'INVALID_ARGUMENT'],
    [415, 'INVALID_ARGUMENT'],
    [418, 'INVALID_ARGUMENT'],
    [429, 'RESOURCE_EXHAUSTED'],
    [499, 'CANCELLED'],
    [500, 'INTERNAL'],
    [502, 'UNAVAILABLE'],
    [503, 'UNAVAILABLE'],
    [504, 'DEADLINE_EXCEEDED'],
    [599, 'INTERNAL'],
  ]);
  t.deepEqual(toGoogleError(new GatewayError(404, 'model "x" not found')), { error: { code: 404, message: 'model "x" not found', status: 'NOT_FOUND' } });
  t.deepEqual(toGoogleError(new GatewayError(429, 'rate limit', { code: 'rate_limited', headers: { 'retry-after': '7' } })), {
    error: {
      code: 429,
      message: 'rate limit',
      status: 'RESOURCE_EXHAUSTED',
      details: [
        { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'rate_limited', domain: 'gw' },
        { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '7s' },
      ],
    },
  });
  const bad = t.throws(() => geminiToChatRequest({ contents: 3 }, { model: 'm', stream: false }), { instanceOf: GatewayError });
  t.deepEqual(toGoogleError(bad).error.details, [
    { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'invalid_request_body', domain: 'gw', metadata: { param: 'contents' } },
  ]);
});

test('countTokens estimate: text bytes / 4, images, calls, turns; both body forms; 400s', (t) => {
  const contents = [
    { role: 'user', parts: [{ text: 'a'.repeat(40) }, { inlineData: { mimeType: 'image/png', data: 'AA' } }] },
    { role: 'model', parts: [{ functionCall: { name: 'f', args: {} } }] },
    { role: 'user', parts: [{ text: '日本' }] },
  ];
  const callTokens = Math.ceil(JSON.stringify({ name: 'f', args: {} }).length / 4);
  t.deepEqual(estimateCountTokens({ contents }), { totalTokens: 3 * TURN_TOKENS + 10 + IMAGE_TOKENS + callTokens + 2 });
  const decls = [{ name: 'f', parameters: { type: 'OBJECT' } }];
  const both = estimateCountTokens({
    generateContentRequest: { model: 'models/x', contents, systemInstruction: { parts: [{ text: 'abcd' }] }, tools: [{ functionDeclarations: decls }] },
  });
  t.is(both.totalTokens, 3 * TURN_TOKENS + 10 + IMAGE_TOKENS + callTokens + 2 + 1 + Math.ceil(JSON.stringify(decls).length / 4));
  t.is(t.throws(() => estimateCountTokens({}), { instanceOf: GatewayError }).param, 'contents');
  t.is(t.throws(() => estimateCountTokens({ contents, generateContentRequest: {} }), { instanceOf: GatewayError }).param, 'contents');
  t.is(t.throws(() => estimateCountTokens({ contents: [{ parts: 1 }] }), { instanceOf: GatewayError }).param, 'contents[0].parts');
  t.is(validate(countTokensRequestSchema, { contents }), undefined);
});

test('embedContent / batchEmbedContents ⇄ common embeddings (recorded OpenAI embeddings response)', (t) => {
  const single = embedContentToEmbeddings(
    {
      model: 'models/text-embedding-3-small',
      content: { parts: [{ text: 'hello' }, { text: 'world' }] },
      taskType: 'RETRIEVAL_QUERY',
      outputDimensionality: 256,
    },
    'text-embedding-3-small',
  );
  t.deepEqual(single, {
    req: { model: 'text-embedding-3-small', input: 'hello\nworld', encoding_format: 'float', dimensions: 256 },
    warnings: ['taskType dropped: no common-format equivalent (at taskType)'],
  });
  const batch = batchEmbedContentsToEmbeddings(
    { requests: [{ content: { parts: [{ text: 'a' }] } }, { model: 'text-embedding-3-small', content: { parts: [{ text: 'b' }] } }] },
    'text-embedding-3-small',
  );
  t.deepEqual(batch.req, { model: 'text-embedding-3-small', input: ['a', 'b'], encoding_format: 'float' });

  const recorded = read<EmbeddingsResponse>('openai/openai-node/embeddings-float-response.json');
  const values = recorded.data[0]!.embedding as number[];
  t.deepEqual(embeddingsToEmbedContent(recorded), { embedding: { values } });
  const b64 = Buffer.alloc(8);
  b64.writeFloatLE(0.5, 0);
  b64.writeFloatLE(-2, 4);
  const two: EmbeddingsResponse = {
    object: 'list',
    model: 'm',
    usage: { prompt_tokens: 2, total_tokens: 2 },
    data: [
      { object: 'embedding', index: 1, embedding: b64.toString('base64') },
      { object: 'embedding', index: 0, embedding: [1, 2] },
    ],
  };
  t.deepEqual(embeddingsToBatchEmbedContents(two), { embeddings: [{ values: [1, 2] }, { values: [0.5, -2] }] });

  const param = (f: () => unknown) => t.throws(f, { instanceOf: GatewayError }).param;
  t.is(
    param(() => embedContentToEmbeddings({ content: { parts: [{ inlineData: {} }] } }, 'm')),
    'content.parts[0]',
  );
  t.is(
    param(() => embedContentToEmbeddings({}, 'm')),
    'content',
  );
  t.is(
    param(() => batchEmbedContentsToEmbeddings({ requests: [] }, 'm')),
    'requests',
  );
  t.is(
    param(() => batchEmbedContentsToEmbeddings({ requests: [{ model: 'models/other', content: { parts: [{ text: 'a' }] } }] }, 'm')),
    'requests[0].model',
  );
  t.is(
    param(() =>
      batchEmbedContentsToEmbeddings(
        { requests: [{ content: { parts: [{ text: 'a' }] } }, { content: { parts: [{ text: 'b' }] }, outputDimensionality: 8 }] },
        'm',
      ),
    ),
    'requests[1].outputDimensionality',
  );
  t.is(validate(batchEmbedContentsRequestSchema, { requests: [{ content: { parts: [{ text: 'a' }] } }] }), undefined);
});

test('models in Gemini shape: names, methods by id, pages; the {model}:{method} segment', (t) => {
  t.deepEqual(toGeminiModel('gpt-4o'), {
    name: 'models/gpt-4o',
    baseModelId: 'gpt-4o',
    version: 'gw',
    displayName: 'gpt-4o',
    description: 'gpt-4o, served by gw',
    supportedGenerationMethods: ['generateContent', 'streamGenerateContent', 'countTokens'],
  });
  t.deepEqual(toGeminiModel('text-embedding-3-small').supportedGenerationMethods, ['embedContent', 'batchEmbedContents', 'countTokens']);
  const ids = ['a', 'b', 'c', 'd', 'e'];
  const p1 = listGeminiModels(ids, { pageSize: '2' });
  t.deepEqual(
    p1.models.map((m) => m.name),
    ['models/a', 'models/b'],
  );
  const p2 = listGeminiModels(ids, { pageSize: '2', pageToken: p1.nextPageToken });
  const p3 = listGeminiModels(ids, { pageSize: '2', pageToken: p2.nextPageToken });
  t.deepEqual(
    [...p2.models, ...p3.models].map((m) => m.baseModelId),
    ['c', 'd', 'e'],
  );
  t.is(p3.nextPageToken, undefined);
  t.is(listGeminiModels(ids).models.length, 5);
  t.is(t.throws(() => listGeminiModels(ids, { pageToken: 'zz' }), { instanceOf: GatewayError }).param, 'pageToken');
  t.is(t.throws(() => listGeminiModels(ids, { pageSize: '-1' }), { instanceOf: GatewayError }).param, 'pageSize');
  t.deepEqual(splitModelMethod('gemini-2.5-flash:streamGenerateContent'), { model: 'gemini-2.5-flash', method: 'streamGenerateContent' });
  t.deepEqual(splitModelMethod('ft%3Agpt-4o%3Aorg%3A1:generateContent'), { model: 'ft:gpt-4o:org:1', method: 'generateContent' });
  t.deepEqual(splitModelMethod('models/x:countTokens'), { model: 'x', method: 'countTokens' });
  t.is(splitModelMethod('gemini-2.5-flash'), undefined);
});
