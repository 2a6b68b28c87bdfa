/**
 * MCP servers and keys' MCP access through the admin API and the CLI (`gw mcp …`,
 * `gw keys … --mcp-tools`), with the rules of runtime providers: a name taken is 409, a server
 * of the config file cannot be deleted (409 naming the file), a runtime server survives a
 * restart, a reload adds and removes the file's servers.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import test from 'ava';
import { runCli } from '../helpers/cli.ts';
import { ADMIN_TOKEN, KEY, startGateway } from '../helpers/gateway.ts';
import { client, httpServer, keySection, mcpServers, rpc, waitUp } from '../helpers/mcp.ts';
import { startHttpMcp } from '../helpers/mcp-upstream.ts';

const adminFetch = (url: string, method: string, body?: unknown) =>
  fetch(url, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

test('gw mcp add/list/show/remove and gw keys --mcp-tools drive a running gateway; a new key has no MCP access until given tools', async (t) => {
  const web = await startHttpMcp({ name: 'web' });
  const gw = await startGateway(`listen = "127.0.0.1:0"\nadmin_token = "${ADMIN_TOKEN}"\n${keySection('default', KEY, ['*'])}`);
  t.teardown(async () => {
    await gw.stop();
    await web.close();
  });
  const env = { GW_URL: gw.url, GW_ADMIN_TOKEN: ADMIN_TOKEN };
  const added = await runCli(['mcp', 'add', 'web', '--url', web.url, '--cost', '0.01', '--exclude', 'fail'], env);
  t.is(added.code, 0, added.stderr);
  t.regex(added.stdout, /^web\s+runtime\s+http\s+up\s+4\s/m);
  const listed = await runCli(['mcp', 'list'], env);
  t.regex(listed.stdout, /NAME\s+SOURCE\s+TRANSPORT\s+STATE\s+TOOLS/);
  t.regex(listed.stdout, /^web\s+runtime\s+http\s+up/m);
  const shown = await runCli(['mcp', 'show', 'web'], env);
  t.regex(shown.stdout, /web__resolve-library-id/);
  t.notRegex(shown.stdout, /web__fail/);

  const created = await runCli(['keys', 'create', 'agent'], env);
  t.is(created.code, 0, created.stderr);
  const agentKey = created.stdout.trim();
  const none = await client(gw, agentKey);
  t.deepEqual((await none.client.listTools()).tools, []);
  await none.client.close();
  const updated = await runCli(['keys', 'update', 'agent', '--mcp-tools', 'web__echo,web__whoami', '--tool-calls', '100'], env);
  t.is(updated.code, 0, updated.stderr);
  t.regex(updated.stdout, /MCP_TOOLS/);
  t.regex(updated.stdout, /web__echo,web__whoami/);
  const some = await client(gw, agentKey);
  t.deepEqual((await some.client.listTools()).tools.map((x) => x.name).sort(), ['web__echo', 'web__whoami']);
  t.deepEqual((await some.client.callTool({ name: 'web__echo', arguments: { text: 'cli' } })).content, [{ type: 'text', text: 'web: cli' }]);
  // narrowed again: the live session lists less and cannot call what it lost
  const narrowed = await runCli(['keys', 'update', 'agent', '--unset', 'mcp-tools'], env);
  t.is(narrowed.code, 0, narrowed.stderr);
  t.deepEqual((await some.client.listTools()).tools, []);
  await t.throwsAsync(some.client.callTool({ name: 'web__echo', arguments: { text: 'x' } }), { message: /Unknown tool: web__echo/ });
  await some.client.close();
  const keys = await adminFetch(`${gw.url}/v1/admin/keys`, 'GET');
  t.like(
    ((await keys.json()) as any).data.find((k: any) => k.name === 'agent'),
    { mcp_tools: null, tool_calls_per_minute: 100 },
  );

  const removed = await runCli(['mcp', 'remove', 'web'], env);
  t.is(removed.code, 0, removed.stderr);
  t.deepEqual(await mcpServers(gw), []);
  const again = await runCli(['mcp', 'remove', 'web'], env);
  t.not(again.code, 0);
  t.regex(again.stderr, /no MCP server 'web'/);
});

test('config servers cannot be deleted or taken at runtime; bad input names its field; a runtime server survives a restart; reload adds and removes file servers', async (t) => {
  const a = await startHttpMcp({ name: 'a' });
  const b = await startHttpMcp({ name: 'b' });
  t.teardown(async () => {
    await a.close();
    await b.close();
  });
  const head = `listen = "127.0.0.1:0"\nadmin_token = "${ADMIN_TOKEN}"\n${keySection('default', KEY, ['*'])}`;
  let gw = await startGateway(`${head}\n${httpServer('a', a.url)}`);
  const dir = gw.dir;
  t.teardown(() => gw.stop());
  await waitUp(gw, ['a']);
  const del = await adminFetch(`${gw.url}/v1/admin/mcp-servers/a`, 'DELETE');
  t.is(del.status, 409);
  t.regex(((await del.json()) as any).error.message, /defined in the config file .*gateway\.toml/);
  const taken = await adminFetch(`${gw.url}/v1/admin/mcp-servers`, 'POST', { name: 'a', url: b.url });
  t.is(taken.status, 409);
  for (const [body, param] of [
    [{ name: 'b__x', url: b.url }, 'name'],
    [{ name: 'b' }, 'url'],
    [{ name: 'b', url: 'ftp://x' }, 'url'],
    [{ name: 'b', command: 'x', url: b.url }, 'url'],
    [{ name: 'b', url: b.url, headers: { 'Mcp-Session-Id': 'x' } }, 'headers.Mcp-Session-Id'],
  ] as const) {
    const r = await adminFetch(`${gw.url}/v1/admin/mcp-servers`, 'POST', body);
    t.is(r.status, 400, JSON.stringify(body));
    t.is(((await r.json()) as any).error.param, param, JSON.stringify(body));
  }
  const created = await adminFetch(`${gw.url}/v1/admin/mcp-servers`, 'POST', {
    name: 'b',
    url: b.url,
    headers: { Authorization: 'Bearer upstream-secret-0123456789' },
  });
  t.is(created.status, 201);
  const listing = JSON.stringify(await created.json());
  t.false(listing.includes('upstream-secret'), 'header values are never listed');
  t.true(
    b.received.some((r) => r.headers.authorization === 'Bearer upstream-secret-0123456789'),
    'but they go upstream',
  );

  // a restart keeps the runtime server
  await gw.stop({ keepDir: true });
  gw = await startGateway(await readFile(`${dir}/gateway.toml`, 'utf8'), { dir });
  await waitUp(gw, ['a', 'b']);
  t.like(
    (await mcpServers(gw)).find((s) => s.name === 'b'),
    { source: 'runtime' },
  );

  // a reload: a removed from the file, c added
  const c = await startHttpMcp({ name: 'c' });
  t.teardown(() => c.close());
  await writeFile(`${dir}/gateway.toml`, `${head}\n${httpServer('c', c.url)}`);
  const reloaded = await adminFetch(`${gw.url}/v1/admin/reload`, 'POST');
  t.is(reloaded.status, 200);
  let names: string[] = [];
  for (let i = 0; i < 100; i++) {
    const list = await mcpServers(gw);
    names = list.filter((s) => s.state === 'up').map((s) => s.name);
    if (names.includes('c') && !names.includes('a')) break;
    await sleep(30);
  }
  t.deepEqual(names.sort(), ['b', 'c']);
  const list = await rpc(
    gw,
    KEY,
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'x', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    },
    { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
  );
  const tools = (list.json.result.tools as Array<{ name: string }>).map((x) => x.name);
  t.true(tools.includes('c__echo') && tools.includes('b__echo') && !tools.some((n) => n.startsWith('a__')));
});
