/**
 * Agents recorded through gw, then replayed offline:
 * - Claude Code (`claude -p`, native Messages on an anthropic provider) runs a Bash tool turn
 *   (`cat notes.txt`) and answers from it; replayed with `match = "sequence"` and the recipe's
 *   `ignore` (its system prompt, session metadata and environment block name the run's temp
 *   dirs), it runs the same tool and completes the same way: the same answer, turns and tokens;
 * - the Vercel AI SDK's `generateText` with a tool (`openai(id)`: the Responses API, native on
 *   the openai kind) replays its tool round trip: the same tool call, text, steps and usage.
 */
import type { ServerResponse } from 'node:http';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import test, { type ExecutionContext } from 'ava';
import { runClaudeCode } from '../helpers/claude-code.ts';
import { ADMIN_TOKEN, baseConfig, KEY, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { charged, requestLog } from '../helpers/record-replay.ts';
import { startResponsesMock } from '../helpers/responses-mock.ts';
import { startUpstream } from '../helpers/upstream.ts';

/** What varies from one Claude Code run to the next in its requests (docs/record-replay.md, the Claude Code recipe). */
const CLAUDE_CODE_IGNORE = '["system", "metadata", "messages[0].content[0]"]';

async function tempDir(t: ExecutionContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-rr-agents-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function gatewayIn(t: ExecutionContext, dir: string, name: string, toml: string): Promise<TestGateway> {
  await mkdir(join(dir, name));
  const gw = await startGateway(baseConfig(`${toml}\n[extensions.request_log]\n`), { dir: join(dir, name) });
  t.teardown(() => gw.stop({ keepDir: true }));
  return gw;
}

const event = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

/** A Messages stream: a Bash call reading notes.txt, or the answer once its result came back. */
function claudeTurn(res: ServerResponse, answered: boolean): void {
  let sse = event('message_start', {
    message: {
      id: 'msg_rr',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-6',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 30, output_tokens: 1 },
    },
  });
  if (answered) {
    sse += event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    sse += event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'The note says: remember the milk.' } });
  } else {
    sse += event('content_block_start', { index: 0, content_block: { type: 'tool_use', id: 'toolu_rr_1', name: 'Bash', input: {} } });
    sse += event('content_block_delta', {
      index: 0,
      delta: { type: 'input_json_delta', partial_json: '{"command": "cat notes.txt", "description": "Read the note"}' },
    });
  }
  sse += event('content_block_stop', { index: 0 });
  sse += event('message_delta', { delta: { stop_reason: answered ? 'end_turn' : 'tool_use', stop_sequence: null }, usage: { output_tokens: 12 } });
  sse += event('message_stop', {});
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(sse);
}

test.serial('a Claude Code tool turn recorded through gw replays offline and completes the same way', async (t) => {
  const dir = await tempDir(t);
  const cassette = join(dir, 'claude-code.jsonl');
  const seen: string[] = [];
  const up = await startUpstream((r, res) => {
    const result = JSON.stringify(r.json.messages).match(/"tool_result".*?"content":"([^"]*)/)?.[1];
    if (result) seen.push(result);
    claudeTurn(res, result !== undefined);
  });
  const live = await gatewayIn(
    t,
    dir,
    'live',
    `[providers.anthropic]\nkind = "anthropic"\napi_key = "sk-ant-upstream-key-0123456789abcdef"\nbase_url = "${up.origin}"\nmodels = ["claude-sonnet-4-6"]\n[extensions.recorder]\npath = "${cassette}"\n`,
  );
  const run = (gw: TestGateway) =>
    runClaudeCode({
      baseUrl: gw.url,
      apiKey: KEY,
      model: 'claude-sonnet-4-6',
      prompt: 'What does notes.txt say?',
      files: { 'notes.txt': 'remember the milk\n' },
      args: ['--output-format', 'json', '--allowedTools', 'Bash(cat:*)'],
    });
  const recorded = await run(live);
  t.is(recorded.code, 0, recorded.stderr);
  t.is(seen.length, 1);
  t.regex(seen[0] ?? '', /^remember the milk\\n/, 'Claude Code ran the tool and sent its output back');
  const liveLog = (await requestLog(live.url, ADMIN_TOKEN, 2)).reverse();
  await live.stop({ keepDir: true });
  await up.close();

  const replay = await gatewayIn(
    t,
    dir,
    'replay',
    `[providers.anthropic]\nkind = "replay"\ncassette = "${cassette}"\nmatch = "sequence"\nignore = ${CLAUDE_CODE_IGNORE}\n`,
  );
  const replayed = await run(replay);
  t.is(replayed.code, 0, replayed.stderr);
  const [a, b] = [JSON.parse(recorded.stdout), JSON.parse(replayed.stdout)];
  t.is(b.result, 'The note says: remember the milk.');
  t.is(b.result, a.result);
  t.is(b.num_turns, a.num_turns);
  t.is(b.is_error, false);
  t.deepEqual([b.usage.input_tokens, b.usage.output_tokens], [a.usage.input_tokens, a.usage.output_tokens]);
  const replayLog = (await requestLog(replay.url, ADMIN_TOKEN, 2)).reverse();
  t.deepEqual(replayLog.map(charged), liveLog.map(charged));
});

test.serial('an AI SDK generateText with a tool replays its round trip offline', async (t) => {
  const dir = await tempDir(t);
  const cassette = join(dir, 'ai-sdk.jsonl');
  const mock = await startResponsesMock((req) =>
    JSON.stringify(req.json.input).includes('function_call_output')
      ? { text: 'Paris: 18C.' }
      : { calls: [{ name: 'get_weather', arguments: '{"city":"Paris"}', id: 'call_ai_1' }] },
  );
  const provider = (kind: string) =>
    kind === 'openai'
      ? `[providers.openai]\nkind = "openai"\napi_key = "sk-ai-sdk-upstream-0123456789"\nbase_url = "${mock.baseURL}"\nmodels = ["gpt-4o-mini"]\n`
      : '';
  const live = await gatewayIn(t, dir, 'live', `${provider('openai')}[extensions.recorder]\npath = "${cassette}"\n`);
  const run = async (gw: TestGateway) => {
    const calls: string[] = [];
    const openai = createOpenAI({ baseURL: gw.baseURL, apiKey: KEY });
    const r = await generateText({
      model: openai('gpt-4o-mini'),
      prompt: 'Weather in Paris?',
      tools: {
        get_weather: tool({
          description: 'Weather in a city',
          inputSchema: jsonSchema<{ city: string }>({
            type: 'object',
            properties: { city: { type: 'string' } },
            required: ['city'],
            additionalProperties: false,
          }),
          execute: async (input) => {
            calls.push(JSON.stringify(input));
            return '18C';
          },
        }),
      },
      stopWhen: stepCountIs(2),
      maxRetries: 0,
    });
    return {
      text: r.text,
      calls,
      steps: r.steps.length,
      toolCalls: r.steps.flatMap((s) => s.toolCalls.map((c) => [c.toolCallId, c.toolName, c.input])),
      usage: r.totalUsage,
    };
  };
  const recorded = await run(live);
  t.is(recorded.text, 'Paris: 18C.');
  await live.stop({ keepDir: true });
  await mock.close();
  const replay = await gatewayIn(t, dir, 'replay', `[providers.openai]\nkind = "replay"\ncassette = "${cassette}"\n`);
  t.deepEqual(await run(replay), recorded);
});
