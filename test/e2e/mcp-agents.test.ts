/**
 * The three coding agents, offline, each pointed at gw as both its model and its MCP server
 * (docs/mcp.md "Agents"): gw serves `server-filesystem` (stdio) as `fs__*` on `/mcp`, and the
 * model is a mock vendor (a common-format upstream: gw translates each agent's API to it) scripted
 * to call the `fs__list_directory` tool the agent offers it. The tool's result (the listing of
 * the agent's workspace, through gw's MCP gateway) must come back in the agent's next model
 * request, and the request log must show the call.
 *
 *   Claude Code   `claude mcp add --transport http gw <url>/mcp --header "Authorization: Bearer …"`,
 *                 `claude mcp list` shows it connected, then `claude -p`
 *   Codex         `[mcp_servers.gw] url = "<url>/mcp"`, `bearer_token_env_var`
 *   Gemini CLI    `mcpServers.gw.httpUrl` with `headers`
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { runClaudeCode } from '../helpers/claude-code.ts';
import { runCodex } from '../helpers/codex.ts';
import { ADMIN_TOKEN, KEY, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { runGeminiCli } from '../helpers/gemini-cli.ts';
import { FILESYSTEM, keySection, mcpLog, stdioServer, waitUp } from '../helpers/mcp.ts';
import { type MockUpstream, type Received, startUpstream } from '../helpers/upstream.ts';

const MODELS = ['claude-sonnet-4-6', 'gpt-5-codex', 'gemini-2.5-flash'];
const ANSWER = 'The directory holds notes.txt.';

let gw: TestGateway;
let vendor: MockUpstream;
let dir: string;

/** The tool the agent offers the model whose name ends in fs__list_directory (agents add prefixes of their own). */
function listTool(r: Received): string | undefined {
  return (r.json.tools ?? []).map((t: { function?: { name?: string } }) => t.function?.name).find((n: string | undefined) => n?.endsWith('fs__list_directory'));
}

/** An OpenAI chat answer, streamed or whole: a call of `tool` on the shared directory, or the final text. */
function reply(res: ServerResponse, r: Received): void {
  const answered = (r.json.messages ?? []).some((m: { role: string }) => m.role === 'tool');
  const tool = listTool(r);
  const message =
    answered || !tool
      ? { role: 'assistant', content: answered ? ANSWER : 'no fs__list_directory tool was offered' }
      : {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_fs_1', type: 'function', function: { name: tool, arguments: JSON.stringify({ path: dir }) } }],
        };
  const finish = 'tool_calls' in message ? 'tool_calls' : 'stop';
  const usage = { prompt_tokens: 30, completion_tokens: 7, total_tokens: 37 };
  const base = { id: 'chatcmpl-mcp', created: 1, model: r.json.model };
  if (!r.json.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ...base, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: finish }], usage }));
    return;
  }
  const chunk = (delta: object, finish_reason: string | null) => ({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason }] });
  const chunks = [chunk({ ...message, tool_calls: message.tool_calls?.map((c, index) => ({ index, ...c })) }, null), chunk({}, finish)];
  chunks.push({ ...base, object: 'chat.completion.chunk', choices: [], usage } as never);
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(`${chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('')}data: [DONE]\n\n`);
}

test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gw-mcp-agents-'));
  writeFileSync(join(dir, 'notes.txt'), 'remember the milk\n');
  vendor = await startUpstream((r, res) => reply(res, r));
  gw = await startGateway(`listen = "127.0.0.1:0"
admin_token = "${ADMIN_TOKEN}"
${keySection('default', KEY, ['fs__*'])}
[providers.vendor]
api_key = "sk-vendor-0123456789abcdef"
base_url = "${vendor.origin}/v1"
max_retries = 0
models = ${JSON.stringify(MODELS)}
${stdioServer('fs', FILESYSTEM, [dir])}
[extensions.request_log]
`);
  await waitUp(gw, ['fs'], 30_000);
});

test.after.always(async () => {
  await gw?.stop();
  await vendor?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The model requests of one agent's run (its model name), in order. */
const turns = (model: string) => vendor.received.filter((r) => r.json?.model === model);

/** Checks the tool's result came back to the model, and the MCP call is in the request log. */
async function checkRoundTrip(t: import('ava').ExecutionContext, model: string): Promise<void> {
  const [first, second] = turns(model);
  t.truthy(
    first && listTool(first),
    `the agent offered the model an fs__list_directory tool: ${JSON.stringify(first?.json.tools?.map((x: any) => x.function?.name))}`,
  );
  t.truthy(second, 'a second model request');
  const result = second!.json.messages.find((m: { role: string }) => m.role === 'tool');
  t.regex(JSON.stringify(result?.content), /\[FILE\] notes\.txt/, "the directory listing, through gw's MCP gateway, in the agent's next request");
  const log = await mcpLog(gw, (l) => l.some((e) => e.tool === 'list_directory'));
  t.like(
    log.find((e) => e.tool === 'list_directory'),
    { route: 'mcp', key: 'default', mcp_server: 'fs', outcome: 'ok', status: 200 },
  );
}

test.serial('Claude Code: claude mcp add gw, claude mcp list shows it connected, and claude -p calls fs__list_directory through gw', async (t) => {
  const r = await runClaudeCode({
    baseUrl: gw.url,
    apiKey: KEY,
    model: MODELS[0],
    prompt: 'List the files of the shared directory.',
    args: ['--allowedTools', 'mcp__gw__fs__list_directory', '--output-format', 'json'],
    // MCP tools offered up front, not behind its ToolSearch tool: the scripted model calls the tool in one turn
    env: { ENABLE_TOOL_SEARCH: 'false' },
    before: [
      ['mcp', 'add', '--transport', 'http', 'gw', `${gw.url}/mcp`, '--header', `Authorization: Bearer ${KEY}`],
      ['mcp', 'list'],
    ],
  });
  t.is(r.before[0]!.code, 0, r.before[0]!.stderr);
  t.regex(r.before[1]!.stdout, /gw: .*\/mcp \(HTTP\) - [✓✔] Connected/);
  t.false(r.timedOut);
  t.is(r.code, 0, r.stderr);
  t.is(JSON.parse(r.stdout).result, ANSWER);
  await checkRoundTrip(t, MODELS[0]!);
});

test.serial('Codex: [mcp_servers.gw] url with bearer_token_env_var; codex exec calls fs__list_directory through gw', async (t) => {
  const r = await runCodex({
    baseURL: `${gw.url}/v1`,
    apiKey: KEY,
    model: MODELS[1],
    prompt: 'List the files of the shared directory.',
    extraConfig: `[mcp_servers.gw]\nurl = "${gw.url}/mcp"\nbearer_token_env_var = "{{KEY_VAR}}"\n`,
  });
  t.false(r.timedOut);
  t.is(r.exitCode, 0, r.stderr);
  t.regex(r.stdout, /The directory holds notes\.txt\./);
  await checkRoundTrip(t, MODELS[1]!);
});

test.serial('Gemini CLI: mcpServers.gw.httpUrl with headers; gemini -p calls fs__list_directory through gw', async (t) => {
  const r = await runGeminiCli({
    baseUrl: gw.url,
    apiKey: KEY,
    model: MODELS[2],
    prompt: 'List the files of the shared directory.',
    settings: { mcpServers: { gw: { httpUrl: `${gw.url}/mcp`, headers: { Authorization: `Bearer ${KEY}` }, trust: true } } },
    args: ['--yolo'],
  });
  t.false(r.timedOut);
  t.is(r.code, 0, r.stderr);
  t.regex(r.stdout, /The directory holds notes\.txt\./);
  await checkRoundTrip(t, MODELS[2]!);
});
