/**
 * Every tools/call is a request of gw's hook pipeline (docs/mcp.md "Governance"): the budget
 * reserves the call's price and refuses the call that would cross it (in MCP's error shape),
 * `tool_calls_per_minute` and a server's `max_concurrency` refuse what is over them, and the
 * request log, `/v1/usage?group_by=tool|mcp_server`, `/metrics` and the otel extension's
 * spans (GenAI MCP conventions, parent from `params._meta`, child context sent upstream) all
 * see each call.
 */
import test from 'ava';
import { ADMIN_TOKEN, KEY, KEY2, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { client, ENVELOPE, httpServer, keySection, mcpLog, rpc, waitUp } from '../helpers/mcp.ts';
import { type McpUpstream, startHttpMcp } from '../helpers/mcp-upstream.ts';
import { type OtlpReceiver, startReceiver } from '../helpers/otlp-receiver.ts';

const KEY3 = 'sk-test-key-third-0123456789abcdefgh';
const SERVER = 2;
const CLIENT = 3;

let gw: TestGateway;
let web: McpUpstream;
let rx: OtlpReceiver;

test.before(async () => {
  web = await startHttpMcp({ name: 'web' });
  rx = await startReceiver();
  gw = await startGateway(`listen = "127.0.0.1:0"
admin_token = "${ADMIN_TOKEN}"
${keySection('default', KEY, ['web__*'], 'budget = 0.25')}
${keySection('second', KEY2, ['web__*'], 'tool_calls_per_minute = 3')}
${keySection('third', KEY3, ['web__*'])}
${httpServer('web', web.url, 'cost_per_call = 0.01\nmax_concurrency = 1\n[mcp_servers.web.tool_costs]\necho = 0.1\nwhoami = 0')}
[extensions.rate_limit]
requests_per_minute = 1000
[extensions.budget]
default_budget = 100
[extensions.usage]
[extensions.request_log]
[extensions.otel]
endpoint = "${rx.endpoint}"
schedule_delay_ms = 20
`);
  await waitUp(gw, ['web']);
});

test.after.always(async () => {
  await gw?.stop();
  await web?.close();
  await rx?.close();
});

const admin = async (path: string) => (await fetch(`${gw.url}${path}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json() as Promise<any>;

test.serial("the budget reserves each call at its price and refuses the call that would cross it, in MCP's error shape", async (t) => {
  const { client: c } = await client(gw, KEY);
  await c.callTool({ name: 'web__echo', arguments: { text: '1' } });
  await c.callTool({ name: 'web__echo', arguments: { text: '2' } });
  // 0.2 spent: a third echo (0.1) would make 0.3 > 0.25
  const refused = await c.callTool({ name: 'web__echo', arguments: { text: '3' } }).catch((e: Error & { code?: number; data?: any }) => e);
  t.true(refused instanceof Error);
  t.is((refused as { code?: number }).code, -32000);
  t.like((refused as { data?: any }).data, { code: 'budget_exceeded', type: 'rate_limit_error' });
  // a cheaper call still fits (0.01), a free one skips the budget
  t.true((await c.callTool({ name: 'web__fail', arguments: {} })).isError);
  t.truthy(await c.callTool({ name: 'web__whoami', arguments: {} }));
  await c.close();
  const budget = (await admin('/v1/budget')).find((b: any) => b.key === 'default');
  t.is(budget.spent_usd, 0.21);
  const echoes = web.received.filter((r) => r.body?.method === 'tools/call' && r.body.params.name === 'echo' && r.body.params.arguments.text === '3');
  t.is(echoes.length, 0, 'the refused call never reached the server');
  const log = await mcpLog(
    gw,
    (l) => l.some((e) => e.outcome === 'limited' && e.key === 'default') && l.some((e) => e.key === 'default' && e.outcome === 'tool_error'),
  );
  t.like(
    log.find((e) => e.outcome === 'limited' && e.key === 'default'),
    { error_code: 'budget_exceeded', status: 429, mcp_server: 'web', tool: 'echo', cost_usd: null },
  );
  t.like(
    log.find((e) => e.key === 'default' && e.outcome === 'tool_error'),
    { tool: 'fail', cost_usd: 0.01, status: 200 },
  );
});

test.serial('tool_calls_per_minute refuses the call over it, with a retry time; other keys are not limited', async (t) => {
  const { client: c } = await client(gw, KEY2);
  for (let i = 0; i < 3; i++) t.falsy((await c.callTool({ name: 'web__resolve-library-id', arguments: { libraryName: `l${i}` } })).isError);
  const over = await c.callTool({ name: 'web__resolve-library-id', arguments: { libraryName: 'l3' } }).catch((e: Error & { data?: any }) => e);
  t.like((over as { data?: any }).data, { code: 'rate_limit_exceeded' });
  t.true((over as { data?: any }).data.retry_after_seconds >= 1);
  await c.close();
  const { client: c3 } = await client(gw, KEY3);
  for (let i = 0; i < 5; i++) t.falsy((await c3.callTool({ name: 'web__resolve-library-id', arguments: { libraryName: 'x' } })).isError);
  await c3.close();
  const window = (await admin('/v1/rate_limit')).find((w: any) => w.key === 'second');
  t.like(window, { tool_calls: 3, tool_calls_per_minute: 3, requests: 0 });
});

test.serial('max_concurrency: a call while the server has its one call in flight is refused as limited', async (t) => {
  const { client: c } = await client(gw, KEY3);
  const slow = c.callTool({ name: 'web__slow', arguments: { ms: 400, steps: 1 } });
  await new Promise((r) => setTimeout(r, 100));
  const second = await c.callTool({ name: 'web__slow', arguments: { ms: 10, steps: 1 } }).catch((e: Error & { data?: any }) => e);
  t.like((second as { data?: any }).data, { code: 'mcp_concurrency_limit' });
  t.deepEqual((await slow).content, [{ type: 'text', text: 'slept 400 ms' }]);
  // the slot is back
  t.deepEqual((await c.callTool({ name: 'web__slow', arguments: { ms: 10, steps: 1 } })).content, [{ type: 'text', text: 'slept 10 ms' }]);
  await c.close();
});

test.serial('usage groups calls by tool and by server; /metrics counts them by server, tool and outcome', async (t) => {
  let byTool: any[] = [];
  for (let i = 0; i < 100; i++) {
    byTool = await admin('/v1/usage?group_by=tool');
    if (byTool.find((e) => e.tool === 'echo')?.requests >= 3) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const echo = byTool.find((e) => e.tool === 'echo');
  t.like(echo, { requests: 3, errors: 1, cost_usd: 0.2 });
  t.deepEqual(echo.outcomes, { ok: 2, limited: 1 });
  const byServer = await admin('/v1/usage?group_by=mcp_server,key');
  t.true(byServer.some((e: any) => e.mcp_server === 'web' && e.key === 'second' && e.requests === 4));
  const metrics = await (await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text();
  t.regex(metrics, /gw_mcp_calls_total\{server="web",tool="echo",outcome="ok"\} 2/);
  t.regex(metrics, /gw_mcp_calls_total\{server="web",tool="echo",outcome="limited"\} 1/);
  t.regex(metrics, /gw_mcp_calls_total\{server="web",tool="fail",outcome="tool_error"\} 1/);
  t.regex(metrics, /gw_mcp_call_duration_seconds_count\{server="web"\} \d+/);
  t.regex(metrics, /gw_mcp_server_up\{server="web"\} 1/);
  t.regex(metrics, /gw_requests_total\{route="mcp",model="web__echo",provider="web",status="200"\} 2/);
  t.regex(metrics, /gw_refusals_total\{reason="budget"\} 1/);
});

test.serial("traces: tools/call spans as the GenAI MCP conventions say, the client's _meta trace as parent, a child context upstream", async (t) => {
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const parent = '00f067aa0ba902b7';
  const r = await rpc(
    gw,
    KEY3,
    {
      jsonrpc: '2.0',
      id: 'call-1',
      method: 'tools/call',
      params: { name: 'web__echo', arguments: { text: 't' }, _meta: { ...ENVELOPE, traceparent: `00-${traceId}-${parent}-01` } },
    },
    { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'web__echo' },
  );
  t.is(r.status, 200);
  const deadline = Date.now() + 10_000;
  let spans = rx.spans.filter((s) => s.traceId === traceId);
  while (spans.length < 2 && Date.now() < deadline) {
    await new Promise((res) => setTimeout(res, 20));
    spans = rx.spans.filter((s) => s.traceId === traceId);
  }
  const server = spans.find((s) => s.kind === SERVER)!;
  const upstream = spans.find((s) => s.kind === CLIENT)!;
  t.is(server.name, 'tools/call web__echo');
  t.is(server.parentSpanId, parent);
  t.like(server.attributes, {
    'mcp.method.name': 'tools/call',
    'gen_ai.tool.name': 'web__echo',
    'gen_ai.operation.name': 'execute_tool',
    'mcp.protocol.version': '2026-07-28',
    'jsonrpc.request.id': 'call-1',
  });
  t.is(upstream.name, 'tools/call echo');
  t.is(upstream.parentSpanId, server.spanId);
  t.like(upstream.attributes, { 'gen_ai.tool.name': 'echo', 'gw.provider': 'web' });
  // the upstream got the client span's context in params._meta, never the client's own
  const sent = web.received.filter((x) => x.body?.method === 'tools/call' && x.body.params.arguments?.text === 't');
  t.is(sent.length, 1);
  t.is(sent[0]!.body.params._meta.traceparent, `00-${traceId}-${upstream.spanId}-01`);
  t.false(JSON.stringify(sent[0]!.body.params._meta).includes('io.modelcontextprotocol'));
  // a tool that answered isError is error.type = tool_error; a session's calls carry mcp.session.id
  const { client: c, transport } = await client(gw, KEY3);
  const session = transport.sessionId;
  await c.callTool({ name: 'web__fail', arguments: {} });
  await c.close();
  const find = () => rx.spans.find((s) => s.kind === SERVER && s.name === 'tools/call web__fail' && s.attributes['gw.key'] === 'third');
  for (let i = 0; i < 250 && !find(); i++) await new Promise((res) => setTimeout(res, 20));
  t.like(find()?.attributes, { 'error.type': 'tool_error', 'mcp.session.id': session });
});
