/**
 * Foundation: `gw` as a subprocess. First run, the startup line, a config error reported
 * in one line, `-v` flags and LOG_LEVEL, and SIGTERM letting a stream finish.
 */
import test from 'ava';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { runToExit, spawnGateway, type GatewayProcess } from '../helpers/gateway.ts';

const KEY = 'sk-cli-test-key-0123456789abcdef';
const SECRET = /^sk-[A-Za-z0-9_-]{32,}$/;

async function tempDir(t: import('ava').ExecutionContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-cli-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Writes a config with a mock provider to `dir`; returns its path. */
async function mockConfig(dir: string, extra = ''): Promise<string> {
  const file = join(dir, 'gateway.toml');
  await writeFile(
    file,
    `listen = "127.0.0.1:0"\nadmin_token = "sk-cli-admin-0123456789abcdef"\n\n[keys.default]\nkey = "${KEY}"\n\n[providers.mock]\nmodels = ["mock-a", "mock-b"]\ndelay_ms = 0\n${extra}`,
  );
  return file;
}

/** Starts gw and stops it (SIGTERM, then SIGKILL) at teardown. */
async function started(t: import('ava').ExecutionContext, args: string[], env?: NodeJS.ProcessEnv): Promise<GatewayProcess> {
  const gw = await spawnGateway(args, { env });
  t.teardown(async () => {
    if (gw.child.exitCode !== null || gw.child.signalCode !== null) return;
    gw.child.kill('SIGTERM');
    const t2 = setTimeout(() => gw.child.kill('SIGKILL'), 5000);
    await gw.exited;
    clearTimeout(t2);
  });
  return gw;
}

function chat(url: string, body: Record<string, unknown>, key = KEY): Promise<Response> {
  return fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

test('first run: a missing config is created with sk- secrets, and gw serves with them', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'sub', 'gateway.toml');
  const gw = await started(t, ['serve', '--config', file, '--bind', '127.0.0.1:0']);
  const cfg = parse(await readFile(file, 'utf8')) as { admin_token: string; keys: { default: { key: string } } };
  t.regex(cfg.admin_token, SECRET);
  t.regex(cfg.keys.default.key, SECRET);
  t.not(cfg.admin_token, cfg.keys.default.key);
  const ok = await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${cfg.keys.default.key}` } });
  t.is(ok.status, 200);
  const asAdmin = await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${cfg.admin_token}` } });
  t.is(asAdmin.status, 401);
  // secrets are not echoed on the console
  t.false(gw.stdout().includes(cfg.admin_token) || gw.stderr().includes(cfg.admin_token));
  t.false(gw.stdout().includes(cfg.keys.default.key) || gw.stderr().includes(cfg.keys.default.key));
});

test('startup line: exactly "listening on <address> (<n> models, <n> providers, <n> extensions)"', async (t) => {
  const dir = await tempDir(t);
  // 3 distinct models over 2 providers (mock-b listed twice), an alias that is not counted
  const file = await mockConfig(dir, '\n[providers.mock2]\nkind = "mock"\nmodels = ["mock-b", "mock-c"]\n\n[aliases]\nfriendly = "mock-a"\n');
  const gw = await started(t, ['serve', '--config', file, '--bind', '127.0.0.1:0']);
  const line = gw
    .stdout()
    .split('\n')
    .find((l) => l.startsWith('listening on'));
  t.regex(line ?? '', /^listening on 127\.0\.0\.1:\d+ \(3 models, 2 providers, 0 extensions\)$/);
  t.is(`http://${line!.split(' ')[2]}`, gw.url);
});

test('startup line: one of each is singular, "(1 model, 1 provider, 1 extension)"', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'gateway.toml');
  await writeFile(file, `listen = "127.0.0.1:0"\n[keys.default]\nkey = "${KEY}"\n[providers.mock]\nmodels = ["mock-a"]\n[extensions.usage]\n`);
  const gw = await started(t, ['serve', '--config', file]);
  t.regex(gw.stdout(), /^listening on 127\.0\.0\.1:\d+ \(1 model, 1 provider, 1 extension\)$/m);
});

test("gw --config <path> (form 1) binds to the file's listen", async (t) => {
  const dir = await tempDir(t);
  const file = await mockConfig(dir);
  const gw = await started(t, ['--config', file]);
  t.is((await fetch(`${gw.url}/health`)).status, 200);
});

test('a config error: one line on stderr naming the file and key path, non-zero exit', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'gateway.toml');
  await writeFile(file, 'listen = "127.0.0.1:0"\n[providers.up]\napi_key = "${GW_T_CLI_UNSET}"\nbase_url = "http://127.0.0.1:9/v1"\n');
  const r = await runToExit(['serve', '--config', file, '--bind', '127.0.0.1:0']);
  t.not(r.code, 0);
  const lines = r.stderr.split('\n').filter((l) => l.trim());
  t.is(lines.length, 1, r.stderr);
  t.true(lines[0]!.includes(file));
  t.true(lines[0]!.includes('providers.up.api_key'));
  t.true(lines[0]!.includes('GW_T_CLI_UNSET'));
  t.false(r.stdout.includes('listening on'));
  const syntax = await runToExit([
    'serve',
    '--config',
    await (async () => {
      await writeFile(file, 'listen = \n');
      return file;
    })(),
    '--bind',
    '127.0.0.1:0',
  ]);
  t.not(syntax.code, 0);
  t.is(syntax.stderr.trim().split('\n').length, 1);
  t.regex(syntax.stderr, /line 1/);
});

/** JSON log lines with a given `msg`. */
function logLines(out: string, msg: string): Array<Record<string, unknown>> {
  return out
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.msg === msg);
}

/**
 * The `msg` lines of gw's stdout once `n` of them arrived, or what arrived in 5 s: gw writes
 * its log asynchronously (server/log.ts), so a line can reach the pipe well after the answer
 * on a loaded machine (a fixed 100 ms wait failed there).
 */
async function awaitLogLines(gw: GatewayProcess, msg: string, n: number): Promise<Array<Record<string, unknown>>> {
  for (let i = 0; i < 250; i++) {
    const lines = logLines(gw.stdout(), msg);
    if (lines.length >= n) return lines;
    await new Promise((r) => setTimeout(r, 20));
  }
  return logLines(gw.stdout(), msg);
}

test('LOG_LEVEL=warn: no request lines; -v: request, response and provider call lines at info (flags win over LOG_LEVEL)', async (t) => {
  // one dir each: the store is locked by the process that has it open
  const file = async () => mockConfig(await tempDir(t));
  const quiet = await started(t, ['serve', '--config', await file(), '--bind', '127.0.0.1:0'], { LOG_LEVEL: 'warn' });
  t.is((await chat(quiet.url, { model: 'mock-a', messages: [{ role: 'user', content: 'hi' }] })).status, 200);
  const loud = await started(t, ['-v', 'serve', '--config', await file(), '--bind', '127.0.0.1:0'], { LOG_LEVEL: 'error' });
  t.is((await chat(loud.url, { model: 'mock-a', messages: [{ role: 'user', content: 'hi' }] })).status, 200);
  const envInfo = await started(t, ['serve', '--config', await file(), '--bind', '127.0.0.1:0'], { LOG_LEVEL: 'info' });
  t.is((await chat(envInfo.url, { model: 'mock-a', messages: [{ role: 'user', content: 'hi' }] })).status, 200);
  for (const gw of [loud, envInfo]) {
    const req = await awaitLogLines(gw, 'request', 1);
    const res = await awaitLogLines(gw, 'response', 1);
    t.is(req.length, 1, gw.stdout());
    t.is(req[0]!.path, '/v1/chat/completions');
    t.is(res[0]!.status, 200);
    t.is(res[0]!.model, 'mock-a');
    t.is(res[0]!.provider, 'mock');
  }
  // the quiet gw answered before the other two did: a line of its would have arrived by now
  t.is(logLines(quiet.stdout(), 'request').length, 0);
  t.false(loud.stdout().includes(KEY));
});

test('-vvv (trace) logs no secret', async (t) => {
  const dir = await tempDir(t);
  const file = await mockConfig(dir);
  const gw = await started(t, ['-vvv', 'serve', '--config', file, '--bind', '127.0.0.1:0']);
  await chat(gw.url, { model: 'mock-a', messages: [{ role: 'user', content: 'hi' }] });
  await chat(gw.url, { model: 'mock-a', messages: [{ role: 'user', content: 'hi' }] }, 'sk-cli-admin-0123456789abcdef');
  t.true((await awaitLogLines(gw, 'request', 2)).length >= 2);
  t.false(gw.stdout().includes(KEY));
  t.false(gw.stdout().includes('sk-cli-admin-0123456789abcdef'));
});

test('-vv after the subcommand works too (npx would take a -v before it for itself): debug lines name the provider', async (t) => {
  const dir = await tempDir(t);
  const file = await mockConfig(dir);
  const gw = await started(t, ['serve', '-vv', '--config', file, '--bind', '127.0.0.1:0']);
  await chat(gw.url, { model: 'mock-a', messages: [{ role: 'user', content: 'hi' }] });
  const dispatched = await awaitLogLines(gw, 'dispatched', 1);
  t.is(dispatched.length, 1);
  t.is(dispatched[0]!.level, 20);
});

test('SIGTERM during a stream: the stream finishes with [DONE], new connections are refused, exit 0', async (t) => {
  const dir = await tempDir(t);
  const file = await mockConfig(dir);
  await writeFile(file, (await readFile(file, 'utf8')).replace('delay_ms = 0', 'delay_ms = 60'));
  const gw = await started(t, ['serve', '--config', file, '--bind', '127.0.0.1:0']);
  const words = 'one two three four five six seven eight';
  const r = await chat(gw.url, { model: 'mock-a', messages: [{ role: 'user', content: words }], stream: true });
  t.is(r.status, 200);
  const reader = r.body!.getReader();
  const dec = new TextDecoder();
  let text = dec.decode((await reader.read()).value, { stream: true });
  gw.child.kill('SIGTERM');
  await new Promise((res) => setTimeout(res, 50));
  await t.throwsAsync(fetch(`${gw.url}/health`));
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += dec.decode(value, { stream: true });
  }
  t.true(text.endsWith('data: [DONE]\n\n'));
  const content = text
    .split('\n\n')
    .filter((e) => e.startsWith('data: {'))
    .map((e) => JSON.parse(e.slice(6)).choices[0]?.delta?.content ?? '')
    .join('');
  t.is(content, words);
  t.is(await gw.exited, 0);
});
