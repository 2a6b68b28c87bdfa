/**
 * `@modelcontextprotocol/conformance` (0.1.16, offline: it only talks to the URL it is given)
 * run against gw's `/mcp`: every server scenario, with a baseline of the ones that need the
 * suite's own reference server behind gw or a capability gw does not offer
 * (test/fixtures/mcp/conformance-baseline.yml says which and why). The run fails on any other
 * failure, and on a baseline entry that starts passing (the baseline is then stale).
 * The suite sends no credentials, so this gateway runs open (no keys: every tool visible).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { ADMIN_TOKEN, startGateway } from '../helpers/gateway.ts';
import { httpServer, waitUp } from '../helpers/mcp.ts';
import { startHttpMcp } from '../helpers/mcp-upstream.ts';

const CONFORMANCE = createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/dist/index.js');
const BASELINE = fileURLToPath(new URL('../fixtures/mcp/conformance-baseline.yml', import.meta.url));

test("the conformance suite's server scenarios pass against /mcp, but for its baseline", async (t) => {
  const web = await startHttpMcp({ name: 'web' });
  const gw = await startGateway(`listen = "127.0.0.1:0"\nadmin_token = "${ADMIN_TOKEN}"\n${httpServer('web', web.url)}`);
  const cwd = await mkdtemp(join(tmpdir(), 'gw-conformance-'));
  t.teardown(async () => {
    await gw.stop();
    await web.close();
    await rm(cwd, { recursive: true, force: true });
  });
  await waitUp(gw, ['web']);
  const run = await new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn(process.execPath, [CONFORMANCE, 'server', '--url', `${gw.url}/mcp`, '--expected-failures', BASELINE], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (out += d));
    const kill = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.once('close', (code) => {
      clearTimeout(kill);
      resolve({ code, out });
    });
  });
  const summary = run.out.slice(run.out.indexOf('=== SUMMARY ==='));
  t.is(run.code, 0, summary);
  for (const scenario of [
    'server-initialize',
    'ping',
    'tools-list',
    'resources-list',
    'prompts-list',
    'server-sse-multiple-streams',
    'dns-rebinding-protection',
  ])
    t.regex(summary, new RegExp(`✓ ${scenario}: \\d+ passed, 0 failed`), scenario);
});
