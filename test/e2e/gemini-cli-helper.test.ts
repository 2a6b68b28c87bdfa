/**
 * Gemini CLI 0.61 (`gemini -p`), offline, against a local Gemini-API mock: proves the
 * `runGeminiCli` helper (what the CLI calls, and what it needs to finish a prompt and a tool
 * turn), and that the CLI reads the Gemini stream this format translates from a common-format
 * stream. No gateway involved.
 */
import type { ServerResponse } from 'node:http';
import test from 'ava';
import type { ChatCompletionChunk } from '../../lib/common/chat.ts';
import { CommonToGeminiStep } from '../../protocols/gemini/from-common-step.ts';
import { encodeSseResponse } from '../../protocols/gemini/stream-framing.ts';
import { geminiToChatRequest } from '../../protocols/gemini/to-chat-request.ts';
import { runGeminiCli } from '../helpers/gemini-cli.ts';
import { fixture, startUpstream, type MockUpstream, type Received } from '../helpers/upstream.ts';

const KEY = 'gw-test-gemini-key';
const STREAM_PATH = '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse';

/** A scripted `alt=sse` answer: each item one response, CRLF framing as Google sends it. */
function sse(res: ServerResponse, responses: unknown[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(responses.map((r) => `data: ${JSON.stringify(r)}\r\n\r\n`).join(''));
}

const usage = { promptTokenCount: 12, candidatesTokenCount: 4, totalTokenCount: 16 };
const textTurn = (...texts: string[]) =>
  texts.map((text, i) => ({
    candidates: [{ content: { role: 'model', parts: [{ text }] }, index: 0, ...(i === texts.length - 1 ? { finishReason: 'STOP' } : {}) }],
    ...(i === texts.length - 1 ? { usageMetadata: usage } : {}),
    modelVersion: 'mock',
  }));

/** Whether the last turn of a request is the client answering a function call. */
const answersCall = (r: Received) => (r.json.contents.at(-1).parts as Array<Record<string, unknown>>).some((p) => p.functionResponse !== undefined);

async function withMock(handler: (r: Received, res: ServerResponse) => void, fn: (up: MockUpstream) => Promise<void>): Promise<void> {
  const up = await startUpstream(handler);
  try {
    await fn(up);
  } finally {
    await up.close();
  }
}

test.serial('a prompt: one streamGenerateContent?alt=sse call with x-goog-api-key, the streamed text on stdout', async (t) => {
  await withMock(
    (_r, res) => sse(res, textTurn('Hello from ', 'the mock.')),
    async (up) => {
      const r = await runGeminiCli({ baseUrl: up.origin, apiKey: KEY, prompt: 'Say hello' });
      t.false(r.timedOut);
      t.is(r.code, 0, r.stderr);
      t.is(r.stdout.trim(), 'Hello from the mock.');
      t.deepEqual(
        up.received.map((x) => `${x.method} ${x.url}`),
        [`POST ${STREAM_PATH}`],
      );
      const req = up.received[0]!;
      t.is(req.headers['x-goog-api-key'], KEY);
      t.regex(String(req.headers['user-agent']), /^GeminiCLI[^/]*\/0\.61\.0\/gemini-2\.5-flash /);
      t.regex(String(req.headers['x-goog-api-client']), /google-genai-sdk\//);
      const lastUser = req.json.contents.at(-1);
      t.is(lastUser.role, 'user');
      t.is(lastUser.parts.at(-1).text, 'Say hello');
      t.truthy(req.json.systemInstruction);
    },
  );
});

test.serial('a tool turn: read_file runs without approval and its output comes back as a functionResponse', async (t) => {
  await withMock(
    (r, res) => {
      if (!answersCall(r)) {
        sse(res, [
          {
            candidates: [
              {
                content: { role: 'model', parts: [{ functionCall: { name: 'read_file', args: { file_path: 'notes.txt' } } }] },
                finishReason: 'STOP',
                index: 0,
              },
            ],
            usageMetadata: usage,
          },
        ]);
      } else {
        sse(res, textTurn('The note says: remember the milk.'));
      }
    },
    async (up) => {
      const r = await runGeminiCli({ baseUrl: up.origin, apiKey: KEY, prompt: 'What does notes.txt say?', files: { 'notes.txt': 'remember the milk\n' } });
      t.is(r.code, 0, r.stderr);
      t.is(r.stdout.trim(), 'The note says: remember the milk.');
      t.is(up.received.length, 2);
      const [modelTurn, userTurn] = up.received[1]!.json.contents.slice(-2);
      const call = modelTurn.parts[0].functionCall;
      t.is(call.name, 'read_file');
      t.deepEqual(call.args, { file_path: 'notes.txt' });
      t.is(typeof call.id, 'string', 'the CLI mints an id when the server sent none');
      t.deepEqual(userTurn.parts[0].functionResponse, { id: call.id, name: 'read_file', response: { output: 'remember the milk\n' } });
    },
  );
});

test.serial('an error answer ends the run at once (no retries), with the Google message on stderr', async (t) => {
  await withMock(
    (_r, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 400, message: 'mock refuses this request', status: 'INVALID_ARGUMENT' } }));
    },
    async (up) => {
      const r = await runGeminiCli({ baseUrl: up.origin, apiKey: KEY, prompt: 'hi' });
      t.false(r.timedOut);
      t.not(r.code, 0);
      t.regex(r.stderr, /mock refuses this request/);
      t.is(up.received.length, 1);
    },
  );
});

/** Common-format chunks of a recorded OpenAI stream. */
function readChunks(rel: string): ChatCompletionChunk[] {
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

test.serial('the CLI reads translated common-format streams: a fragmented tool call, its id round trip, then text', async (t) => {
  const call: ChatCompletionChunk[] = ['{"file_', 'path":"notes', '.txt"}'].map((args, i) => ({
    id: 'chatcmpl-x',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'gpt-4o-mini',
    choices: [
      {
        index: 0,
        delta: {
          tool_calls: [
            {
              index: 0,
              ...(i === 0
                ? { id: 'call_openai_1', type: 'function' as const, function: { name: 'read_file', arguments: args } }
                : { function: { arguments: args } }),
            },
          ],
        },
        finish_reason: i === 2 ? 'tool_calls' : null,
      },
    ],
  }));
  call.push({
    id: 'chatcmpl-x',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'gpt-4o-mini',
    choices: [],
    usage: { prompt_tokens: 20, completion_tokens: 9, total_tokens: 29 },
  });
  const text = readChunks('openai/vercel-ai/openai-text.sse');
  const translated: ReturnType<typeof geminiToChatRequest>[] = [];
  await withMock(
    (r, res) => {
      const tr = geminiToChatRequest(r.json, { model: 'gemini-2.5-flash', stream: true });
      translated.push(tr);
      const mapper = new CommonToGeminiStep({ includeThoughts: tr.includeThoughts });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const c of answersCall(r) ? text : call) for (const g of mapper.push(c)) res.write(encodeSseResponse(g));
      for (const g of mapper.end()) res.write(encodeSseResponse(g));
      res.end();
    },
    async (up) => {
      const r = await runGeminiCli({ baseUrl: up.origin, apiKey: KEY, prompt: 'What does notes.txt say?', files: { 'notes.txt': 'remember the milk\n' } });
      t.is(r.code, 0, r.stderr);
      const expected = text.flatMap((c) => c.choices.map((ch) => ch.delta.content ?? '')).join('');
      t.is(r.stdout.trim(), expected.trim());
      t.is(translated.length, 2);
      t.deepEqual(translated[1]!.req.messages.slice(-2), [
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_openai_1', type: 'function', function: { name: 'read_file', arguments: '{"file_path":"notes.txt"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_openai_1', content: 'remember the milk\n' },
      ]);
    },
  );
});
