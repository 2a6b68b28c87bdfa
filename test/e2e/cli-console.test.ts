/**
 * The console's CLI side: `gw requests` (table oldest first, --json, filters, --follow) and
 * the health columns of `gw providers list`, as subprocesses against a running gw.
 */
import test from 'ava';
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { runCli } from '../helpers/cli.ts';
import { ADMIN_TOKEN } from '../helpers/gateway.ts';
import { admin, client, gatewayWith, HI, KEY2, openaiUpstream, post } from '../helpers/ext-helpers.ts';

const GW_BIN = fileURLToPath(new URL('../../cli/gw.js', import.meta.url));
const envFor = (gw: { url: string }) => ({ GW_URL: gw.url, GW_ADMIN_TOKEN: ADMIN_TOKEN });

/** Waits until the request log holds `n` entries (they are written just after each answer). */
async function logged(gw: { url: string }, n: number): Promise<void> {
  for (let i = 0; i < 100 && (await admin(gw, 'GET', '/v1/requests')).body.length < n; i++) await sleep(20);
}

test('gw requests: a table oldest first, --json newest first, filters; gw providers list shows the last 5 minutes', async (t) => {
  const up = await openaiUpstream();
  const gw = await gatewayWith(t, up, '[aliases]\ngpt4 = "gpt-4o"\n\n[extensions.request_log]\n');
  await client(gw).chat.completions.create({ model: 'gpt4', messages: HI });
  t.is((await post(gw, '/v1/chat/completions', { model: 'nope', messages: HI })).status, 404);
  await logged(gw, 2);

  const table = await runCli(['requests'], envFor(gw));
  t.is(table.code, 0, table.stderr);
  const lines = table.stdout.trimEnd().split('\n');
  t.is(lines.length, 3);
  t.regex(lines[0]!, /^TIME\s+STATUS\s+KEY\s+ROUTE\s+MODEL\s+PROVIDER\s+TRY\s+LATENCY_MS\s+TTFB_MS\s+TOKENS\s+COST_USD\s+ERROR$/);
  t.regex(lines[1]!, /^\d{4}-\d\d-\d\dT\S+Z\s+200\s+default\s+chat\s+gpt4→gpt-4o\s+up\s+1\s+[\d.]+\s+[\d.]+\s+\d+\+\d+\s+-$/);
  t.regex(lines[2]!, /\s404\s+default\s+chat\s+nope\s+-\s+0\s.*model_not_found$/);
  t.is(lines[1]!.indexOf('default'), lines[2]!.indexOf('default'), 'columns are aligned');

  const json = await runCli(['requests', '--json', '--status', '4xx'], envFor(gw));
  t.is(json.code, 0, json.stderr);
  t.deepEqual(
    JSON.parse(json.stdout).map((e: any) => [e.status, e.model]),
    [[404, 'nope']],
  );
  const bad = await runCli(['requests', '--status', 'teapot'], envFor(gw));
  t.is(bad.code, 1);
  t.regex(bad.stderr, /^gw: query parameter 'status' takes .* \(HTTP 400\)\n$/);

  const providers = await runCli(['providers', 'list'], envFor(gw));
  t.is(providers.code, 0, providers.stderr);
  t.regex(providers.stdout.split('\n')[1]!, /^up\s+\S+\s+file\s+\S+\s+\S+\s+closed\s+1\s+0%\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+gpt-4o,text-embedding-3-small$/);
});

test('gw requests --error-code, --tag, --request-id and --until filter as the API does; --until with --follow is refused', async (t) => {
  const up = await openaiUpstream();
  const gw = await gatewayWith(t, up, '[keys.second.tags]\nteam = "ml"\n[extensions.request_log]\n');
  await client(gw).chat.completions.create({ model: 'gpt-4o', messages: HI });
  t.is((await post(gw, '/v1/chat/completions', { model: 'nope', messages: HI })).status, 404);
  const tagged = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY2}`, 'content-type': 'application/json', 'x-request-id': 'cli-find-me-7' },
    body: JSON.stringify({ model: 'gpt-4o', messages: HI }),
  });
  t.is(tagged.status, 200);
  await logged(gw, 3);
  const ids = async (args: string[]) => {
    const r = await runCli(['requests', '--json', ...args], envFor(gw));
    t.is(r.code, 0, r.stderr);
    return JSON.parse(r.stdout).map((e: any) => [e.key, e.status]);
  };
  t.deepEqual(await ids(['--error-code', 'model_not_found']), [['default', 404]]);
  t.deepEqual(await ids(['--tag', 'team:ml']), [['second', 200]]);
  t.deepEqual(await ids(['--tag', 'team:']), [
    ['default', 404],
    ['default', 200],
  ]);
  t.deepEqual(await ids(['--request-id', 'FIND-ME']), [['second', 200]]);
  t.deepEqual(await ids(['--until', '2000-01-01T00:00:00Z']), []);
  const follow = await runCli(['requests', '--follow', '--until', '2030-01-01'], envFor(gw));
  t.is(follow.code, 1);
  t.regex(follow.stderr, /^gw: --until cannot be used with --follow/);
  const impossible = await runCli(['requests', '--until', '2026-02-30'], envFor(gw));
  t.is(impossible.code, 1);
  t.regex(impossible.stderr, /query parameter 'until' must be a real calendar date/);
});

test('gw requests without the extension: one line saying how to enable it', async (t) => {
  const up = await openaiUpstream();
  const gw = await gatewayWith(t, up, '');
  const r = await runCli(['requests'], envFor(gw));
  t.is(r.code, 1);
  t.is(r.stderr, 'gw: the request_log extension is not enabled: add [extensions.request_log] to the gateway config (HTTP 404)\n');
});

test('gw requests --follow prints each new request once, as it ends', async (t) => {
  const up = await openaiUpstream();
  const gw = await gatewayWith(t, up, '[extensions.request_log]\n');
  await client(gw).chat.completions.create({ model: 'gpt-4o', messages: HI });
  await logged(gw, 1);
  const child = spawn(process.execPath, [GW_BIN, 'requests', '--follow', '--json', '--interval', '100'], {
    env: { ...process.env, ...envFor(gw) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.teardown(() => void child.kill('SIGKILL'));
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d));
  const lines = async (n: number) => {
    for (let i = 0; i < 200 && out.split('\n').filter(Boolean).length < n; i++) await sleep(25);
    return out
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  };
  t.is((await lines(1)).length, 1);
  for (let i = 0; i < 3; i++) await client(gw).chat.completions.create({ model: 'gpt-4o', messages: HI });
  t.is((await post(gw, '/v1/chat/completions', { model: 'nope', messages: HI })).status, 404);
  const got = await lines(5);
  await sleep(350); // a few more polls: nothing is printed twice
  const all = out
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  t.is(all.length, 5);
  t.is(new Set(all.map((e) => e.request_id)).size, 5);
  t.deepEqual(
    got.map((e) => e.status),
    [200, 200, 200, 200, 404],
  );
});
