/**
 * The MCP gateway on the wire (docs/mcp.md): one gw in front of two streamable HTTP servers
 * built with the SDK's McpServer (`web`, `alt`: both have an `echo`, `alt` has names that do not
 * fit) and one old HTTP+SSE server (`old`), driven by the SDK's own clients (1.x: 2025-11-25 with
 * sessions; 2.x: 2026-07-28) and by raw requests for what a client library never sends.
 *
 * Keys: `default` may use every tool, `second` only `web__echo` and `old__*`, `third` has no
 * `mcp_tools` (no MCP access).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import test from 'ava';
import { ADMIN_TOKEN, KEY, KEY2, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { client, ENVELOPE, httpServer, keySection, mcpLog, mcpServers, rawSession, rpc, rpcStream, waitUp } from '../helpers/mcp.ts';
import { type McpUpstream, startHttpMcp, startSseMcp } from '../helpers/mcp-upstream.ts';

const KEY3 = 'sk-test-key-third-0123456789abcdefgh';
const LONG = `tool_${'x'.repeat(70)}`;

let gw: TestGateway;
let web: McpUpstream;
let alt: McpUpstream;
let old: McpUpstream;

test.before(async () => {
  web = await startHttpMcp({ name: 'web' });
  alt = await startHttpMcp({ name: 'alt', extraTools: { 'get.weather': 'sunny', [LONG]: 'long' } });
  old = await startSseMcp({ name: 'old' });
  gw = await startGateway(
    `listen = "127.0.0.1:0"
admin_token = "${ADMIN_TOKEN}"
${keySection('default', KEY, ['*'])}
${keySection('second', KEY2, ['web__echo', 'old__*'])}
${keySection('third', KEY3, undefined)}
${httpServer('web', web.url)}
${httpServer('alt', alt.url)}
${httpServer('old', old.url, '', 'sse')}
[mcp]
allowed_origins = ["https://app.example"]
[extensions.request_log]
`,
  );
  await waitUp(gw, ['web', 'alt', 'old']);
});

test.after.always(async () => {
  await gw?.stop();
  await Promise.all([web?.close(), alt?.close(), old?.close()]);
});

const names = (tools: Array<{ name: string }>) => tools.map((t) => t.name).sort();

test.serial('one catalog over three servers, namespaced; each key lists what it may use, a key without mcp_tools nothing', async (t) => {
  const { client: c } = await client(gw, KEY);
  const all = names((await c.listTools()).tools);
  for (const tool of ['echo', 'resolve-library-id', 'fail', 'slow', 'whoami']) {
    t.true(all.includes(`web__${tool}`), tool);
    t.true(all.includes(`alt__${tool}`), tool);
    t.true(all.includes(`old__${tool}`), tool);
  }
  // a name that would not fit ^[A-Za-z0-9_-]{1,64}$ is hashed, stably
  const hashed = all.filter((n) => n.startsWith('alt__') && !['echo', 'resolve-library-id', 'fail', 'slow', 'whoami'].some((o) => n === `alt__${o}`));
  t.is(hashed.length, 2);
  for (const n of hashed) t.regex(n, /^alt__[A-Za-z0-9_-]+_[0-9a-f]{8}$/);
  t.true(all.every((n) => /^[A-Za-z0-9_-]{1,64}$/.test(n)));
  const listing = (await mcpServers(gw)).find((s) => s.name === 'alt');
  const weather = listing.tools.find((x: any) => x.own === 'get.weather');
  t.true(weather.hashed);
  t.true(hashed.includes(weather.name));
  // and calling the hashed name reaches the tool under its own name
  t.deepEqual((await c.callTool({ name: weather.name, arguments: {} })).content, [{ type: 'text', text: 'sunny' }]);
  await c.close();

  const { client: c2 } = await client(gw, KEY2);
  t.deepEqual(names((await c2.listTools()).tools), ['old__echo', 'old__fail', 'old__resolve-library-id', 'old__slow', 'old__whoami', 'web__echo']);
  t.deepEqual(
    (await c2.listPrompts()).prompts.map((p) => p.name),
    ['old__greet'],
  );
  await c2.close();
  const { client: c3 } = await client(gw, KEY3);
  t.deepEqual((await c3.listTools()).tools, []);
  t.deepEqual((await c3.listResources()).resources, []);
  await c3.close();
});

test.serial('every tool of the HTTP and SSE servers answers through gw: a hyphenated name, isError, the same tool name on two servers', async (t) => {
  const { client: c } = await client(gw, KEY);
  t.deepEqual((await c.callTool({ name: 'web__echo', arguments: { text: 'a' } })).content, [{ type: 'text', text: 'web: a' }]);
  t.deepEqual((await c.callTool({ name: 'alt__echo', arguments: { text: 'b' } })).content, [{ type: 'text', text: 'alt: b' }]);
  t.deepEqual((await c.callTool({ name: 'old__echo', arguments: { text: 'c' } })).content, [{ type: 'text', text: 'old: c' }]);
  t.deepEqual((await c.callTool({ name: 'web__resolve-library-id', arguments: { libraryName: 'react' } })).content, [{ type: 'text', text: '/lib/react' }]);
  const failed = await c.callTool({ name: 'web__fail', arguments: {} });
  t.true(failed.isError);
  t.deepEqual((await c.callTool({ name: 'old__slow', arguments: { ms: 10, steps: 1 } })).content, [{ type: 'text', text: 'slept 10 ms' }]);
  // the client session has an upstream session of its own on web (one initialize, kept)
  const who = (await c.callTool({ name: 'web__whoami', arguments: {} })).content as Array<{ text: string }>;
  t.true(web.sessions.has(who[0]!.text));
  t.deepEqual((await c.callTool({ name: 'web__whoami', arguments: {} })).content, who);
  t.deepEqual((await c.getPrompt({ name: 'old__greet', arguments: { who: 'Ada' } })).messages, [
    { role: 'user', content: { type: 'text', text: 'Hello Ada from old' } },
  ]);
  t.deepEqual((await c.readResource({ uri: 'web://readme' })).contents, [{ uri: 'web://readme', text: 'readme of web' }]);
  await c.close();

  const log = await mcpLog(gw, (l) => l.some((e) => e.model === 'web__fail') && l.some((e) => e.model === 'web__resolve-library-id'));
  const fail = log.find((e) => e.model === 'web__fail');
  t.like(fail, { route: 'mcp', key: 'default', mcp_server: 'web', tool: 'fail', outcome: 'tool_error', status: 200, provider: 'web' });
  t.like(
    log.find((e) => e.model === 'web__resolve-library-id'),
    { outcome: 'ok', tool: 'resolve-library-id', mcp_server: 'web', prompt_tokens: null },
  );
  t.true(
    log.every((e) => e.request_body === undefined),
    'no content without log_bodies',
  );
});

test.serial('a denied tool answers exactly as an unknown one, and the request log tells them apart', async (t) => {
  const { client: c2 } = await client(gw, KEY2);
  const denied = await c2.callTool({ name: 'web__fail', arguments: {} }).catch((e: Error & { code?: number }) => e);
  const unknown = await c2.callTool({ name: 'web__nope', arguments: {} }).catch((e: Error & { code?: number }) => e);
  await c2.close();
  t.true(denied instanceof Error);
  t.is((denied as { code?: number }).code, -32602);
  t.is((denied as Error).message, 'MCP error -32602: Unknown tool: web__fail');
  t.is((unknown as Error).message, 'MCP error -32602: Unknown tool: web__nope');
  const log = await mcpLog(gw, (l) => l.some((e) => e.model === 'web__nope') && l.some((e) => e.model === 'web__fail' && e.key === 'second'));
  t.like(
    log.find((e) => e.model === 'web__fail' && e.key === 'second'),
    { outcome: 'denied', error_code: 'mcp_tool_denied', mcp_server: 'web' },
  );
  t.like(
    log.find((e) => e.model === 'web__nope'),
    { outcome: 'denied', error_code: 'mcp_tool_not_found', mcp_server: null, tool: null },
  );
});

test.serial('progress reaches the client; a cancelled call is cancelled upstream', async (t) => {
  const { client: c } = await client(gw, KEY);
  const progress: number[] = [];
  const done = await c.callTool({ name: 'web__slow', arguments: { ms: 150, steps: 3 } }, undefined, { onprogress: (p) => progress.push(p.progress) });
  t.deepEqual(done.content, [{ type: 'text', text: 'slept 150 ms' }]);
  // the SDK client drops a progress notification read together with the result: at least the first ones
  t.deepEqual(progress, [1, 2, 3].slice(0, progress.length));
  t.true(progress.length >= 2);
  // on the wire, all of them, then the result
  const sid = await rawSession(gw, KEY);
  const events = await rpcStream(
    gw,
    KEY,
    { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'web__slow', arguments: { ms: 90, steps: 3 }, _meta: { progressToken: 7 } } },
    { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' },
  );
  t.deepEqual(
    events.map((e) => (e.method ? `${e.method} ${e.params.progress}/${e.params.total} #${e.params.progressToken}` : e.id)),
    ['notifications/progress 1/3 #7', 'notifications/progress 2/3 #7', 'notifications/progress 3/3 #7', 5],
  );
  const ac = new AbortController();
  const before = web.cancelled.length;
  const pending = c.callTool({ name: 'web__slow', arguments: { ms: 3000, steps: 30 } }, undefined, { signal: ac.signal, onprogress: () => undefined });
  await sleep(300);
  ac.abort();
  await t.throwsAsync(pending);
  for (let i = 0; i < 100 && web.cancelled.length === before; i++) await sleep(20);
  t.is(web.cancelled.length, before + 1, 'the upstream saw the cancellation');
  await c.close();
});

test.serial('notifications/tools/list_changed reaches a session when a server is added at runtime', async (t) => {
  const extra = await startHttpMcp({ name: 'extra' });
  t.teardown(() => extra.close());
  const { client: c } = await client(gw, KEY);
  let changed = 0;
  c.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changed++;
  });
  // the client's GET stream is open once listing works
  await c.listTools();
  await sleep(100);
  const created = await fetch(`${gw.url}/v1/admin/mcp-servers`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'extra', url: extra.url }),
  });
  t.is(created.status, 201);
  t.like(await created.json(), { name: 'extra', source: 'runtime', state: 'up' });
  for (let i = 0; i < 100 && changed === 0; i++) await sleep(20);
  t.true(changed >= 1);
  t.true(names((await c.listTools()).tools).includes('extra__echo'));
  const del = await fetch(`${gw.url}/v1/admin/mcp-servers/extra`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  t.is(del.status, 204);
  t.false(names((await c.listTools()).tools).includes('extra__echo'));
  await c.close();
});

test.serial('no gw key and no client protocol version ever reach an upstream', async (t) => {
  // a 2025-03-26 client and a 2026-07-28 client, each calling a tool on every server
  const sid = await rawSession(gw, KEY, '2025-03-26');
  for (const name of ['web__echo', 'alt__echo', 'old__echo']) {
    const r = await rpc(
      gw,
      KEY,
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: { text: 'v' } } },
      { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-03-26', 'x-api-key': KEY },
    );
    t.is(r.status, 200, JSON.stringify(r.json));
  }
  const modern = new ModernClient({ name: 'modern', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await modern.connect(new ModernTransport(new URL(`${gw.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${KEY}` } } }));
  t.is(modern.getNegotiatedProtocolVersion(), '2026-07-28');
  t.deepEqual((await modern.callTool({ name: 'web__echo', arguments: { text: 'm' } })).content, [{ type: 'text', text: 'web: m' }]);
  await modern.close();
  for (const up of [web, alt, old]) {
    t.true(up.received.length > 0);
    for (const r of up.received) {
      const all = JSON.stringify(r.headers) + JSON.stringify(r.body ?? {});
      t.false(all.includes(KEY), 'the gw key');
      t.false(all.includes('2025-03-26'), "the client's version");
      t.is(r.headers.authorization, undefined);
      t.is(r.headers['x-api-key'], undefined);
      // gw's own probe is the one 2026-07-28 request a 2025 server sees; every other carries what it negotiated
      if (r.body?.method !== 'server/discover' && r.body?.method !== 'initialize' && up !== old) t.is(r.headers['mcp-protocol-version'], '2025-11-25');
    }
  }
});

test.serial('raw 2026-07-28: a header that disagrees with the body fails that request with -32020; the next one is served', async (t) => {
  const call = (name: string) => ({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name, arguments: { text: 'r' }, _meta: ENVELOPE } });
  const headers = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call' };
  const bad = await rpc(gw, KEY, call('web__echo'), { ...headers, 'mcp-name': 'alt__echo' });
  t.is(bad.status, 400);
  t.is(bad.json.error.code, -32020);
  const good = await rpc(gw, KEY, call('web__echo'), { ...headers, 'mcp-name': 'web__echo' });
  t.is(good.status, 200);
  t.deepEqual(good.json.result.content, [{ type: 'text', text: 'web: r' }]);
  // the same in a 2025-11-25 session: the session stays usable
  const sid = await rawSession(gw, KEY);
  const s = { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' };
  const legacyCall = { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'web__echo', arguments: { text: 's' } } };
  const mismatch = await rpc(gw, KEY, legacyCall, { ...s, 'mcp-method': 'tools/call', 'mcp-name': 'old__echo' });
  t.is(mismatch.status, 400);
  t.is(mismatch.json.error.code, -32020);
  t.is(mismatch.json.id, 8);
  const after = await rpc(gw, KEY, legacyCall, { ...s, 'mcp-method': 'tools/call', 'mcp-name': 'web__echo' });
  t.deepEqual(after.json.result.content, [{ type: 'text', text: 'web: s' }]);
});

test.serial('a non-standard method gets -32601 and nothing else: the session goes on', async (t) => {
  const sid = await rawSession(gw, KEY);
  const s = { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' };
  for (const method of ['server/discover', 'copilot/whatever']) {
    const r = await rpc(gw, KEY, { jsonrpc: '2.0', id: 3, method, params: {} }, s);
    t.is(r.status, 200);
    t.is(r.json.error.code, -32601, method);
  }
  const ok = await rpc(gw, KEY, { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'alt__echo', arguments: { text: 'z' } } }, s);
  t.deepEqual(ok.json.result.content, [{ type: 'text', text: 'alt: z' }]);
  // 2026-07-28: an unknown method, then a good call
  const m = await rpc(
    gw,
    KEY,
    { jsonrpc: '2.0', id: 5, method: 'acme/unknown', params: { _meta: ENVELOPE } },
    { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'acme/unknown' },
  );
  t.is(m.json.error.code, -32601);
});

test.serial('sessions: an unknown id or another key gets 404 "Session not found"; DELETE ends one and its upstream sessions', async (t) => {
  const sid = await rawSession(gw, KEY);
  const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
  t.is((await rpc(gw, KEY, list, { 'mcp-session-id': 'no-such-session' })).status, 404);
  const other = await rpc(gw, KEY2, list, { 'mcp-session-id': sid });
  t.is(other.status, 404);
  t.is(other.json.error.message, 'Session not found');
  const missing = await rpc(gw, KEY, list);
  t.is(missing.status, 400);
  // an upstream session opened for this session on web, ended with it
  const who = await rpc(gw, KEY, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'web__whoami', arguments: {} } }, { 'mcp-session-id': sid });
  const upstreamSession = who.json.result.content[0].text as string;
  const del = await fetch(`${gw.url}/mcp`, { method: 'DELETE', headers: { authorization: `Bearer ${KEY}`, 'mcp-session-id': sid } });
  t.is(del.status, 204);
  t.is((await rpc(gw, KEY, list, { 'mcp-session-id': sid })).status, 404);
  t.true(web.received.some((r) => r.method === 'DELETE' && r.headers['mcp-session-id'] === upstreamSession));
});

test.serial('a stale upstream session (the server restarted) is opened again once and the call retried', async (t) => {
  const { client: c } = await client(gw, KEY);
  const first = (await c.callTool({ name: 'web__whoami', arguments: {} })).content as Array<{ text: string }>;
  await web.kill();
  await web.restart();
  const second = await c.callTool({ name: 'web__whoami', arguments: {} });
  t.falsy(second.isError);
  const id = (second.content as Array<{ text: string }>)[0]!.text;
  t.not(id, first[0]!.text);
  t.true(web.sessions.has(id));
  await c.close();
});

test.serial('/mcp/<server> serves one server under its own names', async (t) => {
  const { client: c } = await client(gw, KEY, '/mcp/alt');
  const own = names((await c.listTools()).tools);
  t.true(own.includes('echo') && own.includes('get.weather') && own.includes(LONG));
  t.false(own.some((n) => n.includes('__')));
  t.deepEqual((await c.callTool({ name: 'echo', arguments: { text: 'own' } })).content, [{ type: 'text', text: 'alt: own' }]);
  await c.close();
  const { client: c2 } = await client(gw, KEY2, '/mcp/web');
  t.deepEqual(names((await c2.listTools()).tools), ['echo']);
  await c2.close();
  t.is((await rpc(gw, KEY, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, {}, '/mcp/nope')).status, 404);
  const log = await mcpLog(gw, (l) => l.some((e) => e.model === 'echo'));
  t.like(
    log.find((e) => e.model === 'echo'),
    { mcp_server: 'alt', tool: 'echo', outcome: 'ok' },
  );
});

test.serial("a bad key gets 401 with gw's message and no OAuth discovery; a browser origin not allowed gets 403", async (t) => {
  const init = {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
  };
  const bad = await rpc(gw, 'sk-not-a-key-000000000000000000', init);
  t.is(bad.status, 401);
  t.is(bad.headers.get('www-authenticate'), null);
  t.regex(bad.json.error.message, /key/i);
  t.is((await fetch(`${gw.url}/.well-known/oauth-protected-resource`)).status, 404);
  t.is((await fetch(`${gw.url}/.well-known/oauth-authorization-server`)).status, 404);
  t.is((await rpc(gw, KEY, init, { origin: 'https://evil.example' })).status, 403);
  t.is((await rpc(gw, KEY, init, { origin: 'https://app.example' })).status, 200);
  t.is((await rpc(gw, KEY, init, { origin: 'http://localhost:3000' })).status, 200);
});
