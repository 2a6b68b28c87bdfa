/**
 * Claude Code 2.1.332 (`claude -p`, offline) through gw, set up as the README says:
 * - on an Anthropic provider, its Messages requests pass through natively, with the gateway
 *   key swapped for the provider's and the usage in the request log;
 * - on an OpenAI-format model reached by the README's alias patterns (Claude Code's default
 *   model name → `qwen3-coder-plus`), gw translates both ways through a turn where the CLI
 *   calls its Read tool and answers from the file, the 128,000 output tokens it asks for are
 *   lowered to the provider's `max_output_tokens`, and the tokens Claude Code counts are the
 *   ones gw bills;
 * - with a wrong gateway key it stops at once with gw's message (it retried a 401 for
 *   minutes before gw said `x-should-retry: false`).
 */
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import test from 'ava';
import { parse } from 'smol-toml';
import { runClaudeCode } from '../helpers/claude-code.ts';
import { admin } from '../helpers/ext-helpers.ts';
import { baseConfig, KEY, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { readmeBlock } from '../helpers/readme.ts';
import { fixture, startUpstream, type MockUpstream, type Received } from '../helpers/upstream.ts';

const UPSTREAM_KEY = 'sk-upstream-provider-key-0123456789';
const BASIC_SSE = fixture('anthropic/anthropic-sdk-typescript/basic.sse');

function sse(res: ServerResponse, text: string): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(text);
}

/** The request log's entries, newest first, once `n` are there (the log is written after the answer). */
async function requestLog(gw: TestGateway, n: number): Promise<Array<Record<string, any>>> {
  let entries: Array<Record<string, any>> = [];
  for (let i = 0; i < 100; i++) {
    entries = (await admin(gw, 'GET', '/v1/requests')).body;
    if (entries.length >= n) break;
    await sleep(20);
  }
  return entries;
}

async function withGateway(
  t: import('ava').ExecutionContext,
  handler: (r: Received, res: ServerResponse) => void,
  providers: (up: MockUpstream) => string,
): Promise<{ gw: TestGateway; up: MockUpstream }> {
  const up = await startUpstream(handler);
  const gw = await startGateway(baseConfig(`${providers(up)}\n[extensions.request_log]\n`));
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  return { gw, up };
}

test.serial(
  'claude -p on an Anthropic provider: its request passes through with the provider key, the answer on stdout, usage in the request log',
  async (t) => {
    const { gw, up } = await withGateway(
      t,
      (_r, res) => sse(res, BASIC_SSE),
      (u) =>
        `[providers.anthropic]\nkind = "anthropic"\napi_key = "${UPSTREAM_KEY}"\nbase_url = "${u.origin}"\nmax_retries = 0\nmodels = ["claude-sonnet-4-6"]\n`,
    );
    const r = await runClaudeCode({ baseUrl: gw.url, apiKey: KEY, model: 'claude-sonnet-4-6', prompt: 'Say hello' });
    t.false(r.timedOut);
    t.is(r.code, 0, r.stderr);
    t.is(r.stdout.trim(), 'Hello there!');
    t.is(up.received.length, 1);
    const req = up.received[0]!;
    t.is(req.method, 'POST');
    t.is(req.url, '/v1/messages?beta=true');
    t.is(req.headers['x-api-key'], UPSTREAM_KEY);
    t.is(req.headers.authorization, undefined, 'the gateway key does not reach the provider');
    t.is(req.headers['anthropic-version'], '2023-06-01');
    // Claude Code's betas, passed on as it sent them
    t.regex(String(req.headers['anthropic-beta']), /(^|,)claude-code-\d+(,|$)/);
    t.like(req.json, { model: 'claude-sonnet-4-6', stream: true });
    t.true(Array.isArray(req.json.system) && req.json.system.length > 0, "Claude Code's system prompt");
    t.true(
      req.json.tools.some((tool: { name: string }) => tool.name === 'Read'),
      "Claude Code's tools",
    );
    t.like(req.json.messages.at(-1).content.at(-1), { type: 'text', text: 'Say hello' });
    const [entry] = await requestLog(gw, 1);
    t.like(entry, { route: 'messages', model: 'claude-sonnet-4-6', provider: 'anthropic', status: 200, prompt_tokens: 11, completion_tokens: 6 });
  },
);

/** An OpenAI chat stream: a Read call for `path` (its arguments in two fragments), or a text answer; usage last. */
function chatTurn(model: string, turn: { read: string } | { text: string }): string {
  const base = { id: 'chatcmpl-cc', object: 'chat.completion.chunk', created: 1, model };
  const choice = (delta: object, finish: string | null) => ({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] });
  const chunks =
    'read' in turn
      ? [
          choice(
            { role: 'assistant', tool_calls: [{ index: 0, id: 'call_cc_1', type: 'function', function: { name: 'Read', arguments: '{"file_path":' } }] },
            null,
          ),
          choice({ tool_calls: [{ index: 0, function: { arguments: `${JSON.stringify(turn.read)}}` } }] }, 'tool_calls'),
        ]
      : [choice({ role: 'assistant', content: turn.text }, null), choice({}, 'stop')];
  chunks.push({ ...base, choices: [], usage: { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 } } as never);
  return `${chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('')}data: [DONE]\n\n`;
}

const ANSWER = 'The note says: remember the milk.';

test.serial(
  "claude -p on an OpenAI-format model by the README's alias patterns: a Read tool turn translated both ways, and the tokens it counts are the ones gw bills",
  async (t) => {
    // the README's [aliases] block, as it stands
    const aliases = parse(readmeBlock('[aliases]')).aliases as Record<string, string>;
    t.is(aliases['claude-*'], 'qwen3-coder-plus');
    const { gw, up } = await withGateway(
      t,
      (r, res) => {
        const answered = r.json.messages.some((m: { role: string }) => m.role === 'tool');
        // Claude Code names its working directory in the first user turn; Read takes an absolute path
        const dir = /Primary working directory: (\S+)/.exec(JSON.stringify(r.json.messages))?.[1]?.replace(/\\n$/, '');
        sse(res, chatTurn(r.json.model, answered ? { text: ANSWER } : { read: `${dir}/notes.txt` }));
      },
      (u) =>
        // qwen3-coder-plus answers at most 65,536 tokens; Claude Code asks for 128,000
        `${readmeBlock('[aliases]')}\n[providers.qwen]\nkind = "openai"\napi_key = "${UPSTREAM_KEY}"\nbase_url = "${u.origin}/v1"\nmax_retries = 0\nmodels = ["qwen3-coder-plus", "qwen3-coder-flash"]\nmax_output_tokens = 65536\n`,
    );
    const r = await runClaudeCode({
      baseUrl: gw.url,
      apiKey: KEY,
      prompt: 'What does notes.txt say?',
      files: { 'notes.txt': 'remember the milk\n' },
      args: ['--output-format', 'json'],
    });
    t.false(r.timedOut);
    t.is(r.code, 0, r.stderr);
    const result = JSON.parse(r.stdout);
    t.is(result.is_error, false);
    t.is(result.result, ANSWER);
    t.is(result.num_turns, 2);

    t.is(up.received.length, 2);
    for (const req of up.received) {
      t.is(req.url, '/v1/chat/completions');
      t.is(req.headers.authorization, `Bearer ${UPSTREAM_KEY}`);
      t.like(req.json, { model: 'qwen3-coder-plus', stream: true, stream_options: { include_usage: true }, max_tokens: 65536 });
      t.is(req.json.messages[0].role, 'system', "Claude Code's system prompt");
      t.true(req.json.tools.some((tool: { function: { name: string } }) => tool.function.name === 'Read'));
    }
    const [call, output] = up.received[1]!.json.messages.slice(-2);
    t.deepEqual(call, {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_cc_1', type: 'function', function: { name: 'Read', arguments: JSON.stringify({ file_path: `${r.workspace}/notes.txt` }) } }],
    });
    t.is(output.role, 'tool');
    t.is(output.tool_call_id, 'call_cc_1');
    t.regex(output.content, /^\s*1\tremember the milk\n/, 'the file as Claude Code read it, with line numbers');

    // what Claude Code counted over its two turns is what gw logged and billed for them
    const log = await requestLog(gw, 2);
    t.is(log.length, 2);
    for (const e of log) {
      t.like(e, { route: 'messages', served_model: 'qwen3-coder-plus', provider: 'qwen', status: 200 });
      t.regex(e.model, /^claude-/, 'the model as Claude Code asked for it, which the alias pattern routed');
    }
    t.is(
      result.usage.input_tokens,
      log.reduce((s, e) => s + e.prompt_tokens, 0),
    );
    t.is(
      result.usage.output_tokens,
      log.reduce((s, e) => s + e.completion_tokens, 0),
    );
  },
);

test.serial('claude -p with a wrong gateway key stops at once with the 401 message gw gave, and nothing reaches the provider', async (t) => {
  const { gw, up } = await withGateway(
    t,
    (_r, res) => sse(res, BASIC_SSE),
    (u) => `[providers.anthropic]\nkind = "anthropic"\napi_key = "${UPSTREAM_KEY}"\nbase_url = "${u.origin}"\nmodels = ["claude-sonnet-4-6"]\n`,
  );
  // without x-should-retry: false it retried for minutes: the limit is well below that
  const r = await runClaudeCode({ baseUrl: gw.url, apiKey: 'sk-not-a-gateway-key-0000000000000', model: 'claude-sonnet-4-6', prompt: 'hi', timeoutMs: 20_000 });
  t.false(r.timedOut, 'Claude Code kept retrying');
  t.is(r.code, 1);
  t.regex(r.stdout + r.stderr, /401 unknown gateway key/);
  t.is(up.received.length, 0);
});
