/**
 * The official @google/genai client against a local server that answers with this format's
 * translations of recorded common-format payloads: proves the SDK parses what gw will emit
 * (and records what the SDK sends, translated to the common format). No gateway involved.
 */
import type { ServerResponse } from 'node:http';
import {
  ApiError,
  FinishReason,
  FunctionCallingConfigMode,
  type GenerateContentResponse,
  type GenerateContentResponseUsageMetadata,
  GoogleGenAI,
  Type,
} from '@google/genai';
import test from 'ava';
import { GatewayError } from '../../core/errors.ts';
import type { ChatCompletion, ChatCompletionChunk, ChatRequest, EmbeddingsResponse } from '../../lib/common/chat.ts';
import { estimateCountTokens } from '../../protocols/gemini/count-tokens.ts';
import { batchEmbedContentsToEmbeddings, embeddingsToBatchEmbedContents } from '../../protocols/gemini/embed-content.ts';
import { chatCompletionToGemini } from '../../protocols/gemini/from-chat-completion.ts';
import { CommonToGeminiStep } from '../../protocols/gemini/from-common-step.ts';
import { toGoogleError } from '../../protocols/gemini/google-error.ts';
import { listGeminiModels, splitModelMethod, toGeminiModel } from '../../protocols/gemini/models.ts';
import { encodeSseError, encodeSseResponse } from '../../protocols/gemini/stream-framing.ts';
import { geminiToChatRequest } from '../../protocols/gemini/to-chat-request.ts';
import { fixture as fixtureText, startUpstream, type MockUpstream, type Received } from '../helpers/upstream.ts';

function readChunks(rel: string): ChatCompletionChunk[] {
  return fixtureText(rel)
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
const readJson = <T>(rel: string): T => JSON.parse(fixtureText(rel)) as T;

/** What the fake upstream answers, by the model named in the URL. */
const COMPLETIONS: Record<string, string> = {
  text: 'openai/spec-examples/chat.default.response.json',
  tools: 'openai/spec-examples/chat.functions.response.json',
};
const STREAMS: Record<string, string> = {
  text: 'openai/vercel-ai/openai-text.sse',
  tools: 'openai/vercel-ai/chat.stream.tool-call-deltas.sse',
  reasoning: 'dashscope/vercel-ai/alibaba-reasoning.sse',
};
const MODELS = ['text', 'tools', 'reasoning', 'text-embedding-3-small'];

let up: MockUpstream;
/** Common-format requests the server derived from what the SDK sent. */
const translated: ChatRequest[] = [];

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

test.before(async () => {
  up = await startUpstream((r, res) => {
    answer(r, res);
  });
});

function answer(r: Received, res: ServerResponse) {
  try {
    const url = new URL(r.url, 'http://x');
    // @google/genai 3.x calls /v1/… by default (Gemini CLI's bundled 1.30 calls /v1beta/…)
    const path = url.pathname.replace(/^\/v1(beta)?\//, '/v1beta/');
    if (r.method === 'GET' && path === '/v1beta/models')
      return json(
        res,
        200,
        listGeminiModels(MODELS, { pageSize: url.searchParams.get('pageSize') ?? undefined, pageToken: url.searchParams.get('pageToken') ?? undefined }),
      );
    if (r.method === 'GET' && path.startsWith('/v1beta/models/')) {
      const id = decodeURIComponent(path.slice('/v1beta/models/'.length));
      if (!MODELS.includes(id)) throw new GatewayError(404, `model ${JSON.stringify(id)} not found`, { code: 'model_not_found' });
      json(res, 200, toGeminiModel(id));
      return;
    }
    const target = splitModelMethod(path.slice('/v1beta/models/'.length));
    if (target === undefined) throw new GatewayError(404, `no route ${r.method} ${path}`);
    const { model, method } = target;
    switch (method) {
      case 'generateContent': {
        const { req, includeThoughts } = geminiToChatRequest(r.json, { model, stream: false });
        translated.push(req);
        if (COMPLETIONS[model] === undefined) throw new GatewayError(404, `model ${JSON.stringify(model)} not found`);
        return json(res, 200, chatCompletionToGemini(readJson<ChatCompletion>(COMPLETIONS[model]), { includeThoughts }));
      }
      case 'streamGenerateContent': {
        const { req, includeThoughts } = geminiToChatRequest(r.json, { model, stream: true });
        translated.push(req);
        const mapper = new CommonToGeminiStep({ includeThoughts });
        const chunks = readChunks(STREAMS[model === 'broken' ? 'text' : model]!);
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        if (model === 'broken') {
          // a failure after the first bytes: three responses, then Google's error event
          for (const c of chunks.slice(0, 4)) for (const g of mapper.push(c)) res.write(encodeSseResponse(g));
          res.end(encodeSseError(new GatewayError(502, 'upstream closed the stream', { code: 'upstream_truncated' })));
          return;
        }
        // a keep-alive comment, as gw's SSE writer sends after 15 s of silence
        res.write(': ping\n\n');
        for (const c of chunks) for (const g of mapper.push(c)) res.write(encodeSseResponse(g));
        for (const g of mapper.end()) res.write(encodeSseResponse(g));
        res.end();
        return;
      }
      case 'countTokens':
        return json(res, 200, estimateCountTokens(r.json));
      case 'batchEmbedContents': {
        const { req } = batchEmbedContentsToEmbeddings(r.json, model);
        const recorded = readJson<EmbeddingsResponse>('openai/openai-node/embeddings-float-response.json');
        const inputs = req.input as string[];
        return json(res, 200, embeddingsToBatchEmbedContents({ ...recorded, data: inputs.map((_, index) => ({ ...recorded.data[0]!, index })) }));
      }
      default:
        throw new GatewayError(404, `no route for method ${method}`);
    }
  } catch (err) {
    if (!(err instanceof GatewayError)) throw err;
    const body = toGoogleError(err);
    return json(res, err.status, body);
  }
}

test.after.always(async () => {
  await up?.close();
});

const client = () => new GoogleGenAI({ apiKey: 'gw-test-key', httpOptions: { baseUrl: up.origin } });

test.serial('generateContent: the SDK reads text, usage, modelVersion and responseId; it sent x-goog-api-key', async (t) => {
  const before = up.received.length;
  const r = await client().models.generateContent({
    model: 'text',
    contents: 'Hello',
    config: { systemInstruction: 'Be nice.', temperature: 0.5, maxOutputTokens: 50, stopSequences: ['END'] },
  });
  const recorded = readJson<ChatCompletion>(COMPLETIONS.text!);
  t.is(r.text, recorded.choices[0]!.message.content as string);
  t.is(r.candidates?.[0]?.finishReason, FinishReason.STOP);
  t.is(r.usageMetadata?.promptTokenCount, 19);
  t.is(r.usageMetadata?.candidatesTokenCount, 10);
  t.is(r.usageMetadata?.totalTokenCount, 29);
  t.is(r.modelVersion, 'gpt-5.4');
  t.is(r.responseId, recorded.id);
  const sent = up.received[before]!;
  t.is(sent.url, '/v1/models/text:generateContent', '@google/genai 3.x defaults to the v1 API');
  t.is(sent.headers['x-goog-api-key'], 'gw-test-key');
  t.deepEqual(translated.at(-1), {
    model: 'text',
    messages: [
      { role: 'system', content: 'Be nice.' },
      { role: 'user', content: 'Hello' },
    ],
    max_tokens: 50,
    temperature: 0.5,
    stop: ['END'],
  });
});

test.serial('generateContentStream: the SDK accumulates the recorded stream (a keep-alive comment in between is ignored)', async (t) => {
  const stream = await client().models.generateContentStream({ model: 'text', contents: 'Tell me a story' });
  let text = '';
  let last: GenerateContentResponse | undefined;
  for await (const chunk of stream) {
    text += chunk.text ?? '';
    last = chunk;
  }
  const expected = readChunks(STREAMS.text!)
    .flatMap((c) => c.choices.map((ch) => ch.delta.content ?? ''))
    .join('');
  t.is(text, expected);
  t.is(last?.candidates?.[0]?.finishReason, FinishReason.STOP);
  t.is(last?.usageMetadata?.totalTokenCount, 316);
  t.true(up.received.at(-1)!.url.endsWith(':streamGenerateContent?alt=sse'));
  t.deepEqual(translated.at(-1)!.stream_options, { include_usage: true });
});

test.serial('thoughts: with includeThoughts the SDK sees thought parts apart from the text', async (t) => {
  const stream = await client().models.generateContentStream({
    model: 'reasoning',
    contents: 'Think',
    config: { thinkingConfig: { includeThoughts: true, thinkingBudget: 1024 } },
  });
  let thoughts = '';
  let text = '';
  let usage: GenerateContentResponseUsageMetadata | undefined;
  for await (const chunk of stream) {
    for (const p of chunk.candidates?.[0]?.content?.parts ?? []) {
      if (p.thought) thoughts += p.text ?? '';
      else text += p.text ?? '';
    }
    usage = chunk.usageMetadata ?? usage;
  }
  const chunks = readChunks(STREAMS.reasoning!);
  t.is(thoughts, chunks.flatMap((c) => c.choices.map((ch) => ch.delta.reasoning_content ?? '')).join(''));
  t.is(text, chunks.flatMap((c) => c.choices.map((ch) => ch.delta.content ?? '')).join(''));
  t.is(usage?.thoughtsTokenCount, 1084);
});

test.serial('function call round trip: the SDK reads functionCalls (with the upstream id) and sends the result back paired', async (t) => {
  const ai = client();
  const tools = [
    {
      functionDeclarations: [
        {
          name: 'get_current_weather',
          description: 'Weather in a city',
          parameters: { type: Type.OBJECT, properties: { location: { type: Type.STRING } }, required: ['location'] },
        },
      ],
    },
  ];
  const config = { tools, toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.ANY, allowedFunctionNames: ['get_current_weather'] } } };
  const first = await ai.models.generateContent({ model: 'tools', contents: 'Weather in Boston?', config });
  t.deepEqual(first.functionCalls, [{ id: 'call_abc123', name: 'get_current_weather', args: { location: 'Boston, MA' } }]);
  const req1 = translated.at(-1)!;
  t.deepEqual(req1.tools, [
    {
      type: 'function',
      function: {
        name: 'get_current_weather',
        description: 'Weather in a city',
        parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
      },
    },
  ]);
  t.deepEqual(req1.tool_choice, { type: 'function', function: { name: 'get_current_weather' } });

  const call = first.functionCalls![0]!;
  await ai.models.generateContent({
    model: 'text',
    contents: [
      { role: 'user', parts: [{ text: 'Weather in Boston?' }] },
      first.candidates![0]!.content!,
      { role: 'user', parts: [{ functionResponse: { id: call.id, name: call.name!, response: { output: '22 C and sunny' } } }] },
    ],
    config,
  });
  t.deepEqual(translated.at(-1)!.messages.slice(1), [
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_abc123', type: 'function', function: { name: 'get_current_weather', arguments: '{"location":"Boston, MA"}' } }],
    },
    { role: 'tool', tool_call_id: 'call_abc123', content: '22 C and sunny' },
  ]);
});

test.serial('a streamed function call arrives whole in one part', async (t) => {
  const stream = await client().models.generateContentStream({ model: 'tools', contents: 'call it' });
  const calls = [];
  for await (const chunk of stream) calls.push(...(chunk.functionCalls ?? []));
  t.deepEqual(calls, [{ id: 'call_O17Uplv4lJvD6DVdIvFFeRMw', name: 'test-tool', args: { value: 'Sparkle Day' } }]);
});

test.serial('embedContent: the SDK reads the vectors (it calls :batchEmbedContents)', async (t) => {
  const r = await client().models.embedContent({ model: 'text-embedding-3-small', contents: ['hello', 'world'], config: { outputDimensionality: 1536 } });
  const values = readJson<EmbeddingsResponse>('openai/openai-node/embeddings-float-response.json').data[0]!.embedding as number[];
  t.is(r.embeddings?.length, 2);
  t.deepEqual(r.embeddings?.[1]?.values, values);
  t.true(up.received.at(-1)!.url.endsWith('/text-embedding-3-small:batchEmbedContents'));
});

test.serial('countTokens and the models listing parse', async (t) => {
  const ai = client();
  const count = await ai.models.countTokens({ model: 'text', contents: 'a'.repeat(40) });
  t.is(count.totalTokens, 13);
  const listed = [];
  for await (const m of await ai.models.list({ config: { pageSize: 3 } })) listed.push(m.name);
  t.deepEqual(
    listed,
    MODELS.map((id) => `models/${id}`),
  );
  const model = await ai.models.get({ model: 'text-embedding-3-small' });
  t.is(model.displayName, 'text-embedding-3-small');
  t.deepEqual(model.supportedActions, ['embedContent', 'batchEmbedContents', 'countTokens']);
});

test.serial('errors: the SDK raises ApiError with the status and Google message, before and during a stream', async (t) => {
  const ai = client();
  const notFound = await t.throwsAsync(ai.models.generateContent({ model: 'nope', contents: 'x' }), { instanceOf: ApiError });
  t.is(notFound.status, 404);
  // the SDK's message is the error body as JSON
  t.deepEqual(JSON.parse(notFound.message), { error: { code: 404, message: 'model "nope" not found', status: 'NOT_FOUND' } });
  const bad = await t.throwsAsync(ai.models.generateContent({ model: 'text', contents: [{ role: 'system', parts: [{ text: 'x' }] }] }), {
    instanceOf: ApiError,
  });
  t.is(bad.status, 400);
  t.is(JSON.parse(bad.message).error.status, 'INVALID_ARGUMENT');
  t.regex(JSON.parse(bad.message).error.message, /contents\[0\]\.role/);

  const stream = await ai.models.generateContentStream({ model: 'broken', contents: 'x' });
  let text = '';
  const midStream = await t.throwsAsync(
    async () => {
      for await (const chunk of stream) text += chunk.text ?? '';
    },
    { instanceOf: ApiError },
  );
  t.is(midStream.status, 502);
  t.regex(midStream.message, /upstream closed the stream/);
  t.true(text.length > 0, 'the responses before the error were delivered');
});
