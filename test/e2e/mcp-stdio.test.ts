/**
 * Real stdio MCP servers from npm behind gw: `@modelcontextprotocol/server-everything` (echo,
 * sums, a long-running operation with progress, prompts, resources) and
 * `@modelcontextprotocol/server-filesystem` on a temp directory, each a child process of gw.
 * A child that dies is `down` at once (its tools hidden, the other server unaffected), is
 * started again, and its last stderr lines are kept across the restart.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import test from 'ava';
import { ADMIN_TOKEN, KEY, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { client, EVERYTHING, FILESYSTEM, keySection, mcpServers, rawSession, rpcStream, stdioServer, waitUp } from '../helpers/mcp.ts';

let gw: TestGateway;
let dir: string;

test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gw-mcp-fs-'));
  writeFileSync(join(dir, 'notes.txt'), 'remember the milk\n');
  gw = await startGateway(`listen = "127.0.0.1:0"
admin_token = "${ADMIN_TOKEN}"
${keySection('default', KEY, ['*'])}
${stdioServer('everything', EVERYTHING, ['stdio'])}
${stdioServer('fs', FILESYSTEM, [dir])}
`);
  await waitUp(gw, ['everything', 'fs'], 30_000);
});

test.after.always(async () => {
  await gw?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test.serial('server-everything and server-filesystem over stdio: tools, progress, prompts and resources through one /mcp', async (t) => {
  const { client: c } = await client(gw, KEY);
  const tools = (await c.listTools()).tools.map((x) => x.name);
  for (const n of ['everything__echo', 'everything__get-sum', 'everything__trigger-long-running-operation', 'fs__list_directory', 'fs__read_text_file'])
    t.true(tools.includes(n), n);
  t.deepEqual((await c.callTool({ name: 'everything__echo', arguments: { message: 'hi' } })).content, [{ type: 'text', text: 'Echo: hi' }]);
  t.deepEqual((await c.callTool({ name: 'everything__get-sum', arguments: { a: 2, b: 3 } })).content, [{ type: 'text', text: 'The sum of 2 and 3 is 5.' }]);
  // progress, as the client receives it: every notification, then the result (raw: a client
  // library drops a progress notification that arrives in the same read as its result)
  const sid = await rawSession(gw, KEY);
  const events = await rpcStream(
    gw,
    KEY,
    {
      jsonrpc: '2.0',
      id: 9,
      method: 'tools/call',
      params: { name: 'everything__trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 }, _meta: { progressToken: 'p1' } },
    },
    { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' },
  );
  t.deepEqual(
    events.map((e) => e.method ?? e.id),
    ['notifications/progress', 'notifications/progress', 'notifications/progress', 9],
  );
  t.deepEqual(
    events.slice(0, 3).map((e) => [e.params.progressToken, e.params.progress, e.params.total]),
    [
      ['p1', 1, 3],
      ['p1', 2, 3],
      ['p1', 3, 3],
    ],
  );
  const listed = await c.callTool({ name: 'fs__list_directory', arguments: { path: dir } });
  t.deepEqual(listed.content, [{ type: 'text', text: '[FILE] notes.txt' }]);
  const read = await c.callTool({ name: 'fs__read_text_file', arguments: { path: join(dir, 'notes.txt') } });
  t.regex(JSON.stringify(read.content), /remember the milk/);
  // outside its directory the server refuses: isError, passed on as it came
  const outside = await c.callTool({ name: 'fs__read_text_file', arguments: { path: '/etc/hostname' } });
  t.true(outside.isError);
  const prompts = (await c.listPrompts()).prompts.map((p) => p.name);
  t.true(prompts.includes('everything__simple-prompt'));
  const prompt = await c.getPrompt({ name: 'everything__simple-prompt', arguments: {} });
  t.true(prompt.messages.length > 0);
  const resources = (await c.listResources()).resources;
  t.true(resources.length > 0);
  const first = resources[0]!;
  t.is((await c.readResource({ uri: first.uri })).contents[0]!.uri, first.uri);
  await c.close();
});

test.serial('a stdio server that dies is down at once, its stderr kept, restarted, and the other server never stops answering', async (t) => {
  const before = (await mcpServers(gw)).find((s) => s.name === 'fs');
  t.is(before.state, 'up');
  t.true(Number.isInteger(before.pid));
  const { client: c } = await client(gw, KEY);
  process.kill(before.pid, 'SIGKILL');
  let down: any;
  for (let i = 0; i < 100 && !down; i++) {
    down = (await mcpServers(gw)).find((s) => s.name === 'fs' && s.state !== 'up');
    await sleep(20);
  }
  t.truthy(down, 'fs is down');
  t.regex(down.last_error, /exited/);
  // its tools are hidden while the other server keeps answering
  const during = (await c.listTools()).tools.map((x) => x.name);
  // (unless it is back already: a restart takes a few hundred ms)
  if (during.some((n) => n.startsWith('fs__'))) t.is((await mcpServers(gw)).find((s) => s.name === 'fs').state, 'up');
  t.true(during.some((n) => n.startsWith('everything__')));
  t.deepEqual((await c.callTool({ name: 'everything__echo', arguments: { message: 'still here' } })).content, [{ type: 'text', text: 'Echo: still here' }]);
  await waitUp(gw, ['fs'], 20_000);
  const after = (await mcpServers(gw)).find((s) => s.name === 'fs');
  t.not(after.pid, before.pid);
  const detail = (await (await fetch(`${gw.url}/v1/admin/mcp-servers/fs`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json()) as {
    stderr: string[];
  };
  const lines = detail.stderr.join('\n');
  t.regex(lines, /Secure MCP Filesystem Server running on stdio/);
  t.regex(lines, /\[gw\] the process exited; restarting/);
  t.true(detail.stderr.length <= 50);
  t.deepEqual((await c.callTool({ name: 'fs__list_directory', arguments: { path: dir } })).content, [{ type: 'text', text: '[FILE] notes.txt' }]);
  await c.close();
});
