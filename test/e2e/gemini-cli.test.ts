/**
 * Gemini CLI 0.61 (`gemini -p`, offline) through gw on a model served by an OpenAI-chat-format
 * mock upstream: a prompt, and a turn where it calls a tool (read_file) and answers from
 * its output. The CLI speaks only the Gemini API (streamGenerateContent?alt=sse on /v1beta,
 * the key in x-goog-api-key); gw translates both ways.
 */
import type { ServerResponse } from 'node:http';
import test from 'ava';
import { baseConfig, KEY, startGateway } from '../helpers/gateway.ts';
import { runGeminiCli } from '../helpers/gemini-cli.ts';
import { fixture, startUpstream, type Received } from '../helpers/upstream.ts';

const MODEL = 'gpt-4o-mini';
const TEXT_SSE = fixture('openai/openai-node/chat.stream.include-usage.sse');

/** The text a recorded OpenAI stream spells out. */
const streamedText = (sse: string) =>
  sse
    .split('\n\n')
    .filter((l) => l.startsWith('data: {'))
    .map((l) => JSON.parse(l.slice(6)).choices?.[0]?.delta?.content ?? '')
    .join('');

/** A fragmented OpenAI tool-call stream for read_file (as OpenAI streams calls), ending with usage. */
function readFileCall(): string {
  const base = { id: 'chatcmpl-cli', object: 'chat.completion.chunk', created: 1, model: MODEL };
  const frags = ['{"file_', 'path":"notes', '.txt"}'];
  const chunks = frags.map((args, i) => ({
    ...base,
    choices: [
      {
        index: 0,
        delta: {
          tool_calls: [
            {
              index: 0,
              ...(i === 0 ? { id: 'call_cli_1', type: 'function', function: { name: 'read_file', arguments: args } } : { function: { arguments: args } }),
            },
          ],
        },
        finish_reason: i === frags.length - 1 ? 'tool_calls' : null,
      },
    ],
  }));
  chunks.push({ ...base, choices: [], usage: { prompt_tokens: 20, completion_tokens: 9, total_tokens: 29 } } as never);
  return `${chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('')}data: [DONE]\n\n`;
}

function sse(res: ServerResponse, text: string): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(text);
}

const answersCall = (r: Received) => (r.json?.messages ?? []).some((m: { role: string }) => m.role === 'tool');

async function withGateway(handler: (r: Received, res: ServerResponse) => void, fn: (gwUrl: string, received: Received[]) => Promise<void>): Promise<void> {
  const up = await startUpstream(handler);
  const gw = await startGateway(
    baseConfig(`[providers.openai]\napi_key = "sk-upstream-openai"\nbase_url = "${up.origin}/v1"\nmax_retries = 0\nmodels = ["${MODEL}"]\n`),
  );
  try {
    await fn(gw.url, up.received);
  } finally {
    await gw.stop();
    await up.close();
  }
}

test.serial('gemini -p through gw on an OpenAI-format upstream: the streamed answer on stdout', async (t) => {
  await withGateway(
    (_r, res) => sse(res, TEXT_SSE),
    async (url, received) => {
      const r = await runGeminiCli({ baseUrl: url, apiKey: KEY, model: MODEL, prompt: 'Say hello' });
      t.false(r.timedOut);
      t.is(r.code, 0, r.stderr);
      t.is(r.stdout.trim(), streamedText(TEXT_SSE).trim());
      t.is(received.length, 1);
      const req = received[0]!;
      t.is(req.url, '/v1/chat/completions');
      t.is(req.headers.authorization, 'Bearer sk-upstream-openai');
      t.like(req.json, { model: MODEL, stream: true, stream_options: { include_usage: true } });
      t.is(req.json.messages[0].role, 'system', "the CLI's systemInstruction");
      // the CLI's session context, then the prompt: two text parts of one user turn
      t.deepEqual(req.json.messages.at(-1).content.at(-1), { type: 'text', text: 'Say hello' });
      t.true(req.json.tools.length > 0, "the CLI's tools, as functions");
    },
  );
});

test.serial('gemini -p through gw: a turn where the CLI calls read_file, then answers from its output', async (t) => {
  await withGateway(
    (r, res) => sse(res, answersCall(r) ? TEXT_SSE : readFileCall()),
    async (url, received) => {
      const r = await runGeminiCli({
        baseUrl: url,
        apiKey: KEY,
        model: MODEL,
        prompt: 'What does notes.txt say?',
        files: { 'notes.txt': 'remember the milk\n' },
      });
      t.is(r.code, 0, r.stderr);
      t.is(r.stdout.trim(), streamedText(TEXT_SSE).trim());
      t.is(received.length, 2);
      t.deepEqual(received[1]!.json.messages.slice(-2), [
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_cli_1', type: 'function', function: { name: 'read_file', arguments: '{"file_path":"notes.txt"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_cli_1', content: 'remember the milk\n' },
      ]);
    },
  );
});
