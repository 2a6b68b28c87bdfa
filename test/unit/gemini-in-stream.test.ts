import { readFileSync } from 'node:fs';
import test from 'ava';
import { GatewayError } from '../../core/errors.ts';
import type { ChatCompletionChunk } from '../../lib/common/chat.ts';
import { CommonToGeminiStep } from '../../protocols/gemini/from-common-step.ts';
import { encodeSseError, encodeSseResponse, JsonArrayFraming } from '../../protocols/gemini/stream-framing.ts';
import type { GenerateContentResponse, Part } from '../../protocols/gemini/types.ts';

/** The `data:` payloads of a recorded common-format stream, `[DONE]` left out. */
function readChunks(rel: string): ChatCompletionChunk[] {
  const text = readFileSync(new URL(`../fixtures/${rel}`, import.meta.url), 'utf8');
  return text
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

function run(chunks: ChatCompletionChunk[], includeThoughts = false): GenerateContentResponse[] {
  const m = new CommonToGeminiStep({ includeThoughts });
  return [...chunks.flatMap((c) => m.push(c)), ...m.end()];
}

const parts = (responses: GenerateContentResponse[], index = 0): Part[] =>
  responses.flatMap((r) => r.candidates?.filter((c) => c.index === index).flatMap((c) => c.content?.parts ?? []) ?? []);
const text = (ps: Part[], thought = false) =>
  ps
    .filter((p) => typeof p.text === 'string' && (p.thought === true) === thought)
    .map((p) => p.text)
    .join('');

const chunk = (choices: ChatCompletionChunk['choices'], usage?: ChatCompletionChunk['usage']): ChatCompletionChunk => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'up-model',
  choices,
  ...(usage ? { usage } : {}),
});

test('recorded OpenAI text stream: one response per content delta, then finishReason and usage together', (t) => {
  const chunks = readChunks('openai/vercel-ai/openai-text.sse');
  const out = run(chunks);
  const deltas = chunks.flatMap((c) => c.choices.map((ch) => ch.delta.content ?? '')).filter((s) => s !== '');
  t.is(out.length, deltas.length + 1);
  t.is(text(parts(out)), deltas.join(''));
  t.deepEqual(out[0], {
    candidates: [{ content: { role: 'model', parts: [{ text: deltas[0]! }] }, index: 0 }],
    modelVersion: 'gpt-4.1-nano-2025-04-14',
    responseId: 'chatcmpl-D8Z5oo6uDh67AD85p73ksdT1KxhE0',
  });
  t.deepEqual(out.at(-1), {
    candidates: [{ content: { role: 'model', parts: [{ text: '' }] }, finishReason: 'STOP', index: 0 }],
    modelVersion: 'gpt-4.1-nano-2025-04-14',
    responseId: 'chatcmpl-D8Z5oo6uDh67AD85p73ksdT1KxhE0',
    usageMetadata: { promptTokenCount: 16, candidatesTokenCount: 300, totalTokenCount: 316 },
  });
  t.true(out.slice(0, -1).every((r) => r.usageMetadata === undefined && r.candidates![0]!.finishReason === undefined));
});

test('recorded tool-call deltas: fragments gathered, one whole functionCall on the final response', (t) => {
  const out = run(readChunks('openai/vercel-ai/chat.stream.tool-call-deltas.sse'));
  t.deepEqual(out, [
    {
      candidates: [
        {
          content: { role: 'model', parts: [{ functionCall: { name: 'test-tool', args: { value: 'Sparkle Day' }, id: 'call_O17Uplv4lJvD6DVdIvFFeRMw' } }] },
          finishReason: 'STOP',
          index: 0,
        },
      ],
      modelVersion: 'gpt-3.5-turbo-0125',
      responseId: 'chatcmpl-96aZqmeDpA9IPD6tACY8djkMsJCMP',
      usageMetadata: { promptTokenCount: 53, candidatesTokenCount: 17, totalTokenCount: 70 },
    },
  ]);
});

test('recorded DashScope reasoning stream: thoughts only with includeThoughts; usage splits thoughts', (t) => {
  const chunks = readChunks('dashscope/vercel-ai/alibaba-reasoning.sse');
  const reasoning = chunks.flatMap((c) => c.choices.map((ch) => ch.delta.reasoning_content ?? '')).join('');
  const answer = chunks.flatMap((c) => c.choices.map((ch) => ch.delta.content ?? '')).join('');
  const withThoughts = run(chunks, true);
  t.is(text(parts(withThoughts), true), reasoning);
  t.is(text(parts(withThoughts)), answer);
  t.deepEqual(withThoughts.at(-1)!.usageMetadata, { promptTokenCount: 24, candidatesTokenCount: 271, thoughtsTokenCount: 1084, totalTokenCount: 1379 });
  const without = run(chunks);
  t.is(text(parts(without), true), '');
  t.is(text(parts(without)), answer);
  t.true(without.length < withThoughts.length);
});

test('text after calls flushes them first; several choices finish into one final response', (t) => {
  const out = run([
    chunk([
      { index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null },
      { index: 1, delta: { content: 'B' }, finish_reason: null },
    ]),
    chunk([{ index: 0, delta: { tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a"' } }] }, finish_reason: null }]),
    chunk([{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: ':1}' } }] }, finish_reason: null }]),
    chunk([{ index: 0, delta: { content: 'then text' }, finish_reason: null }]),
    chunk([{ index: 0, delta: { tool_calls: [{ index: 1, id: 'c2', function: { name: 'g', arguments: '' } }] }, finish_reason: 'tool_calls' }]),
    chunk([{ index: 1, delta: {}, finish_reason: 'length' }]),
    chunk([], { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 }),
    chunk([{ index: 0, delta: { content: 'ignored: after the end' }, finish_reason: null }]),
  ]);
  const meta = { modelVersion: 'up-model', responseId: 'chatcmpl-1' };
  t.deepEqual(out, [
    { candidates: [{ content: { role: 'model', parts: [{ text: 'B' }] }, index: 1 }], ...meta },
    {
      candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'f', args: { a: 1 }, id: 'c1' } }, { text: 'then text' }] }, index: 0 }],
      ...meta,
    },
    {
      candidates: [
        { content: { role: 'model', parts: [{ functionCall: { name: 'g', args: {}, id: 'c2' } }] }, finishReason: 'STOP', index: 0 },
        { content: { role: 'model', parts: [{ text: '' }] }, finishReason: 'MAX_TOKENS', index: 1 },
      ],
      ...meta,
      usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 4, totalTokenCount: 7 },
    },
  ]);
});

test('no usage: the final response goes out at end(); an empty stream still ends with one answer; end() is idempotent', (t) => {
  const m = new CommonToGeminiStep({ includeThoughts: false });
  t.deepEqual(m.push(chunk([{ index: 0, delta: { content: 'x' }, finish_reason: 'stop' }])), [], 'held for the usage');
  t.deepEqual(m.end(), [
    {
      candidates: [{ content: { role: 'model', parts: [{ text: 'x' }] }, finishReason: 'STOP', index: 0 }],
      modelVersion: 'up-model',
      responseId: 'chatcmpl-1',
    },
  ]);
  t.deepEqual(m.end(), []);
  t.deepEqual(run([]), [{ candidates: [{ content: { role: 'model', parts: [{ text: '' }] }, finishReason: 'STOP', index: 0 }] }]);
  const cut = run([chunk([{ index: 0, delta: { tool_calls: [{ index: 0, id: 'c', function: { name: 'f', arguments: '{"a":' } }] }, finish_reason: null }])]);
  t.deepEqual(cut.at(-1)!.candidates![0]!.content!.parts, [{ functionCall: { name: 'f', args: { _raw: '{"a":' }, id: 'c' } }], 'a cut call keeps its text');
});

test('SSE framing: data + CRLF CRLF per response; an error event in Google shape', (t) => {
  const out = run(readChunks('openai/vercel-ai/chat.stream.tool-call-deltas.sse'));
  const body = out.map(encodeSseResponse).join('');
  t.is(body, `data: ${JSON.stringify(out[0])}\r\n\r\n`);
  t.is(
    encodeSseError(new GatewayError(502, 'upstream cut', { code: 'upstream_truncated' })),
    'data: {"error":{"code":502,"message":"upstream cut","status":"UNAVAILABLE","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"upstream_truncated","domain":"gw"}]}}\r\n\r\n',
  );
});

test('JSON-array framing: the body is one JSON array; an error becomes its last element; empty → []', (t) => {
  const out = run(readChunks('openai/vercel-ai/openai-text.sse'));
  const f = new JsonArrayFraming();
  const frames = out.map((r) => f.frame(r));
  t.true(frames[0]!.startsWith('[{'));
  t.true(frames[1]!.startsWith(',\r\n{'));
  const body = frames.join('') + f.end();
  t.deepEqual(JSON.parse(body), out);
  t.is(f.end(), '');

  const g = new JsonArrayFraming();
  const partial = g.frame(out[0]!) + g.frame(out[1]!) + g.error(new GatewayError(504, 'upstream timed out'));
  t.deepEqual(JSON.parse(partial), [out[0], out[1], { error: { code: 504, message: 'upstream timed out', status: 'DEADLINE_EXCEEDED' } }]);
  t.is(g.end(), '', 'closed by the error');
  const early = new JsonArrayFraming();
  t.deepEqual(JSON.parse(early.error(new GatewayError(500, 'x'))), [{ error: { code: 500, message: 'x', status: 'INTERNAL' } }]);
  t.is(new JsonArrayFraming().end(), '[]');
});
