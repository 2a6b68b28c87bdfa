/**
 * A gateway without MCP servers never loads the MCP SDK (mcp/index.ts mounts the routes, mcp/core.ts
 * is imported once MCP is in use): `gw serve` runs with a module-resolve hook that writes every
 * package it resolves to a file; the SDK appears only after the first request to /mcp, which is
 * answered as before.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { KEY, spawnGateway } from '../helpers/gateway.ts';

test('without an MCP server gw serve loads no MCP package; the first /mcp request loads them and is answered', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-mcp-on-use-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const loaded = join(dir, 'packages.txt');
  const hook = join(dir, 'hook.mjs');
  await writeFile(
    hook,
    `import { registerHooks } from 'node:module';
import { appendFileSync } from 'node:fs';
registerHooks({ resolve(specifier, context, next) {
  const resolved = next(specifier, context);
  const found = /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(resolved.url);
  if (found) appendFileSync(${JSON.stringify(loaded)}, found[1] + '\\n');
  return resolved;
} });
`,
  );
  const file = join(dir, 'gateway.toml');
  await writeFile(file, `listen = "127.0.0.1:0"\n\n[providers.mock]\nmodels = ["mock-a"]\n\n[keys.default]\nkey = "${KEY}"\nmcp_tools = ["*"]\n`);
  const gw = await spawnGateway(['serve', '--config', file], { nodeArgs: ['--import', hook] });
  t.teardown(async () => {
    gw.child.kill('SIGTERM');
    await gw.exited;
  });
  const packages = async () => new Set((await readFile(loaded, 'utf8')).split('\n'));
  t.true((await packages()).has('koa'), 'the hook sees gw load its packages');
  t.false(
    [...(await packages())].some((name) => name.startsWith('@modelcontextprotocol/')),
    'no MCP package before /mcp is used',
  );
  const answer = await fetch(`${gw.url}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
    }),
  });
  t.is(answer.status, 200, await answer.clone().text());
  t.regex(await answer.text(), /"serverInfo"/);
  t.true((await packages()).has('@modelcontextprotocol/server'));
});
