/**
 * Three gw instances on one Redis serve MCP as one gateway (docs/mcp.md "Sessions across
 * instances"): limits are exact under 50 parallel calls spread over the three; a PATCH of a
 * key on one instance cuts a live session on another within 2 s; a runtime MCP server added on
 * one reaches the others within 2 s; behind a round-robin balancer 200 sessions see not one
 * "Session not found", and killing one instance loses none of them.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import test, { type ExecutionContext } from 'ava';
import { ADMIN_TOKEN, KEY, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { ENVELOPE, httpServer, keySection, rawSession, rpc, waitUp } from '../helpers/mcp.ts';
import { type McpUpstream, startHttpMcp } from '../helpers/mcp-upstream.ts';
import { redisFor } from '../helpers/redis.ts';
import { startRoundRobin } from '../helpers/round-robin.ts';

/** docs/design.md: runtime changes reach every instance within 2 s. */
const PROPAGATION_MS = 2000;

/**
 * A redis-server, an upstream `web` and `n` instances sharing them (`extra`: more config);
 * undefined when the test skipped (no redis-server outside CI).
 */
async function instances(t: ExecutionContext, extra: string, n = 3): Promise<{ gws: TestGateway[]; web: McpUpstream } | undefined> {
  const r = await redisFor(t);
  if (!r) return undefined;
  const web = await startHttpMcp({ name: 'web' });
  t.teardown(() => web.close());
  const toml = `listen = "127.0.0.1:0"
admin_token = "${ADMIN_TOKEN}"
${keySection('default', KEY, ['*'])}
${httpServer('web', web.url, '[mcp_servers.web.tool_costs]\nwhoami = 0.1')}
${extra}
[extensions.rate_limit]
requests_per_minute = 1000
[extensions.budget]
default_budget = 1000
[store]
url = "${r.url}"
`;
  const gws: TestGateway[] = [];
  for (let i = 0; i < n; i++) gws.push(await startGateway(toml));
  t.teardown(async () => {
    for (const g of gws) await g.stop().catch(() => undefined);
  });
  for (const g of gws) await waitUp(g, ['web', ...[...extra.matchAll(/\[mcp_servers\.(\w+)\]/g)].map((m) => m[1]!)]);
  return { gws, web };
}

const call = (name: string, args: Record<string, unknown>, id = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args, _meta: ENVELOPE },
});
const modern = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call' };

const adminCall = (g: TestGateway, method: string, path: string, body?: unknown) =>
  fetch(`${g.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

test.serial('tool_calls_per_minute, the budget and max_concurrency hold exactly under 50 parallel calls on three instances', async (t) => {
  const busy = await startHttpMcp({ name: 'busy' });
  t.teardown(() => busy.close());
  const set = await instances(t, httpServer('busy', busy.url, 'max_concurrency = 5'));
  if (!set) return;
  const { gws, web } = set;
  // runtime keys: 20 calls a minute; $1.00 (10 calls at $0.10)
  const k = (await (await adminCall(gws[0]!, 'POST', '/v1/admin/keys', { name: 'limited', mcp_tools: ['web__*'], tool_calls_per_minute: 20 })).json()) as {
    key: string;
  };
  const spender = (await (await adminCall(gws[0]!, 'POST', '/v1/admin/keys', { name: 'spender', mcp_tools: ['web__*'], budget: 1 })).json()) as { key: string };
  await sleep(PROPAGATION_MS);
  const rate = await Promise.all(
    Array.from({ length: 50 }, (_, i) => rpc(gws[i % 3]!, k.key, call('web__echo', { text: `r${i}` }), { ...modern, 'mcp-name': 'web__echo' })),
  );
  const ok = rate.filter((r) => r.json.result);
  t.is(ok.length, 20);
  t.true(rate.filter((r) => r.json.error).every((r) => r.json.error.data.code === 'rate_limit_exceeded'));
  t.is(web.received.filter((r) => r.body?.method === 'tools/call' && String(r.body.params.arguments.text).startsWith('r')).length, 20);

  const paid = await Promise.all(
    Array.from({ length: 50 }, (_, i) => rpc(gws[i % 3]!, spender.key, call('web__whoami', {}), { ...modern, 'mcp-name': 'web__whoami' })),
  );
  t.is(paid.filter((r) => r.json.result).length, 10);
  t.true(paid.filter((r) => r.json.error).every((r) => r.json.error.data.code === 'budget_exceeded'));
  const budget = ((await (await adminCall(gws[2]!, 'GET', '/v1/budget')).json()) as any[]).find((b) => b.key === 'spender');
  t.is(budget.spent_usd, 1);

  // max_concurrency 5: 50 slow calls at once, 5 admitted, never more than 5 upstream at a time
  const slow = await Promise.all(
    Array.from({ length: 50 }, (_, i) => rpc(gws[i % 3]!, KEY, call('busy__slow', { ms: 800, steps: 1 }), { ...modern, 'mcp-name': 'busy__slow' })),
  );
  t.is(slow.filter((r) => r.json.result).length, 5);
  t.true(slow.filter((r) => r.json.error).every((r) => r.json.error.data.code === 'mcp_concurrency_limit'));
  t.is(busy.load.max, 5);
});

test.serial('a PATCH on instance B cuts a live session on instance A within 2 s; a server added on B reaches A within 2 s', async (t) => {
  const set = await instances(t, '');
  if (!set) return;
  const [a, b] = set.gws as [TestGateway, TestGateway, TestGateway];
  const created = (await (await adminCall(a, 'POST', '/v1/admin/keys', { name: 'live', mcp_tools: ['web__*'] })).json()) as { key: string };
  await sleep(PROPAGATION_MS);
  const sid = await rawSession(a, created.key);
  const s = { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' };
  const echo = (id: number) => rpc(a, created.key, { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'web__echo', arguments: { text: 'live' } } }, s);
  t.deepEqual((await echo(1)).json.result.content, [{ type: 'text', text: 'web: live' }]);
  const patched = await adminCall(b, 'PATCH', '/v1/admin/keys/live', { mcp_tools: ['other__*'] });
  t.is(patched.status, 200);
  const t0 = Date.now();
  let cut = false;
  while (!cut && Date.now() - t0 < PROPAGATION_MS + 1000) {
    cut = (await echo(2)).json.error?.message === 'Unknown tool: web__echo';
    if (!cut) await sleep(50);
  }
  const took = Date.now() - t0;
  t.true(cut);
  t.true(took <= PROPAGATION_MS, `cut after ${took} ms`);
  t.log(`session on A cut ${took} ms after the PATCH on B`);
  const listed = await rpc(a, created.key, { jsonrpc: '2.0', id: 3, method: 'tools/list' }, s);
  t.deepEqual(listed.json.result.tools, []);
  // revoked on B: A answers 401 within 2 s
  t.is((await adminCall(b, 'DELETE', '/v1/admin/keys/live')).status, 204);
  const r0 = Date.now();
  let status = 0;
  while (status !== 401 && Date.now() - r0 < PROPAGATION_MS + 1000) {
    status = (await echo(4)).status;
    if (status !== 401) await sleep(50);
  }
  t.is(status, 401);
  t.true(Date.now() - r0 <= PROPAGATION_MS);

  // a runtime server added on B is called through A
  const extra = await startHttpMcp({ name: 'extra' });
  t.teardown(() => extra.close());
  t.is((await adminCall(b, 'POST', '/v1/admin/mcp-servers', { name: 'extra', url: extra.url })).status, 201);
  const e0 = Date.now();
  let served = false;
  while (!served && Date.now() - e0 < PROPAGATION_MS + 1000) {
    served = (await rpc(a, KEY, call('extra__echo', { text: 'x' }), { ...modern, 'mcp-name': 'extra__echo' })).json.result !== undefined;
    if (!served) await sleep(50);
  }
  t.true(served);
  t.true(Date.now() - e0 <= PROPAGATION_MS, `reached A after ${Date.now() - e0} ms`);
});

test.serial('200 sessions behind a round-robin balancer: not one "Session not found", and killing one instance loses none', async (t) => {
  const set = await instances(t, '');
  if (!set) return;
  const { gws, web } = set;
  const lb = await startRoundRobin(gws.map((g) => g.url));
  t.teardown(() => lb.close());
  const front = { url: lb.url };
  const errors: string[] = [];
  const step = async (sid: string, i: number, id: number) => {
    const r = await rpc(
      front,
      KEY,
      { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'web__echo', arguments: { text: `s${i}` } } },
      { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' },
    );
    if (r.status !== 200 || r.json.result?.content?.[0]?.text !== `web: s${i}`) errors.push(`${r.status} ${JSON.stringify(r.json)}`);
  };
  const sessions = await Promise.all(Array.from({ length: 200 }, () => rawSession(front, KEY)));
  await Promise.all(sessions.map((sid, i) => step(sid, i, 1)));
  t.deepEqual(errors, []);
  t.true(
    lb.served.every((n) => n > 100),
    `each instance served some: ${lb.served.join(', ')}`,
  );
  // one instance dies: the balancer skips it, every session goes on on the other two
  gws[1]!.running.server.close();
  gws[1]!.running.server.closeAllConnections();
  await Promise.all(sessions.map((sid, i) => step(sid, i, 2)));
  await Promise.all(sessions.map((sid, i) => step(sid, i, 3)));
  t.deepEqual(errors, []);
  // one upstream session per client session, continued by whichever instance served it
  t.true(web.sessions.size <= 200 + 3 * 2, `${web.sessions.size} upstream sessions for 200 client sessions`);
});
