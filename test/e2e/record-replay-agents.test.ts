/**
 * Agents recorded through gw, then replayed offline:
 * - Claude Code (`claude -p`, native Messages on an anthropic provider) runs a Bash tool turn
 *   (`cat notes.txt`) and answers from it; replayed with `match = "sequence"` and the recipe's
 *   `ignore` (its system prompt, session metadata and environment block name the run's temp
 *   dirs), it runs the same tool and completes the same way: the same answer, turns and tokens;
 * - the Codex CLI (`codex exec`, the Responses API native on the openai kind) runs
 *   exec_command and answers from its output; replayed as a sequence with the recipe's
 *   `ignore`, it completes the same way;
 * - the Vercel AI SDK's `generateText` with a tool (`openai(id)`: the Responses API, native on
 *   the openai kind) replays its tool round trip: the same tool call, text, steps and usage.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs } from 'ai';
import test, { type ExecutionContext } from 'ava';
import { ADMIN_TOKEN, baseConfig, KEY, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { charged, claudeCodeNotesSession, claudeCodeTurn, requestLog } from '../helpers/record-replay.ts';
import { weatherTool } from '../helpers/ai-sdk.ts';
import { startResponsesMock } from '../helpers/responses-mock.ts';
import { runCodex } from '../helpers/codex.ts';
import { startUpstream } from '../helpers/upstream.ts';

/** What varies from one Claude Code run to the next in its requests (docs/record-replay.md, the Claude Code recipe). */
const CLAUDE_CODE_IGNORE = '["system", "metadata", "messages[0].content[0]"]';
/** The same for Codex: its instructions, session, the items naming its home, workspace and date, and every item's id. */
const CODEX_IGNORE = '["instructions", "prompt_cache_key", "input[0]", "input[1]", "input[2]", "input[*].id"]';

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

test.serial('a Claude Code tool turn recorded through gw replays offline and completes the same way', async (t) => {
  const dir = await tempDir(t);
  const cassette = join(dir, 'claude-code.jsonl');
  const seen: string[] = [];
  const up = await startUpstream((r, res) => {
    const result = JSON.stringify(r.json.messages).match(/"tool_result".*?"content":"([^"]*)/)?.[1];
    if (result) seen.push(result);
    claudeCodeTurn(res, result !== undefined);
  });
  const live = await gatewayIn(
    t,
    dir,
    'live',
    `[providers.anthropic]\nkind = "anthropic"\napi_key = "sk-ant-upstream-key-0123456789abcdef"\nbase_url = "${up.origin}"\nmodels = ["claude-sonnet-4-6"]\n[extensions.recorder]\npath = "${cassette}"\n`,
  );
  const run = (gw: TestGateway) => claudeCodeNotesSession(gw.url);
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

test.serial('a Codex tool turn (exec_command, then the answer) recorded through gw replays offline and completes the same way', async (t) => {
  const dir = await tempDir(t);
  const cassette = join(dir, 'codex.jsonl');
  const mock = await startResponsesMock((req) =>
    JSON.stringify(req.json.input).includes('function_call_output')
      ? { text: 'The note says: remember the milk.' }
      : { calls: [{ name: 'exec_command', arguments: JSON.stringify({ cmd: 'echo remember the milk' }), id: 'call_codex_1' }] },
  );
  const live = await gatewayIn(
    t,
    dir,
    'live',
    `[providers.openai]\nkind = "openai"\napi_key = "sk-codex-upstream-0123456789"\nbase_url = "${mock.baseURL}"\nmodels = ["test-model"]\n[extensions.recorder]\npath = "${cassette}"\n`,
  );
  const run = (gw: TestGateway) => runCodex({ baseURL: gw.baseURL, apiKey: KEY, prompt: 'What does the note say?' });
  const recorded = await run(live);
  t.is(recorded.exitCode, 0, recorded.stderr);
  t.is(mock.received.length, 2, 'a tool turn, then the answer');
  t.regex(JSON.stringify(mock.received[1]!.json.input), /remember the milk/, 'Codex ran the command and sent its output back');
  await live.stop({ keepDir: true });
  await mock.close();
  const replay = await gatewayIn(
    t,
    dir,
    'replay',
    `[providers.openai]\nkind = "replay"\ncassette = "${cassette}"\nmatch = "sequence"\nignore = ${CODEX_IGNORE}\n`,
  );
  const replayed = await run(replay);
  t.is(replayed.exitCode, 0, replayed.stderr);
  t.is(replayed.stdout.trim(), recorded.stdout.trim());
  t.is(replayed.stdout.trim(), 'The note says: remember the milk.');
});

test.serial('an AI SDK generateText with a tool replays its round trip offline', async (t) => {
  const dir = await tempDir(t);
  const cassette = join(dir, 'ai-sdk.jsonl');
  const mock = await startResponsesMock((req) =>
    JSON.stringify(req.json.input).includes('function_call_output')
      ? { text: 'Paris: 18C.' }
      : { calls: [{ name: 'get_weather', arguments: '{"city":"Paris"}', id: 'call_ai_1' }] },
  );
  const live = await gatewayIn(
    t,
    dir,
    'live',
    `[providers.openai]\nkind = "openai"\napi_key = "sk-ai-sdk-upstream-0123456789"\nbase_url = "${mock.baseURL}"\nmodels = ["gpt-4o-mini"]\n[extensions.recorder]\npath = "${cassette}"\n`,
  );
  const run = async (gw: TestGateway) => {
    const calls: string[] = [];
    const openai = createOpenAI({ baseURL: gw.baseURL, apiKey: KEY });
    const r = await generateText({
      model: openai('gpt-4o-mini'),
      prompt: 'Weather in Paris?',
      tools: { get_weather: weatherTool(calls) },
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
